"""Shared helpers of the Python tests: counting the server processes a test started, failing a call that hangs,
forking while a thread is inside calls."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from typing import Any, Callable, Iterator


def server_children() -> set[int]:
    """The pids of the `g2048 serve` processes this test process started."""
    out = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "g2048 serve"], capture_output=True, text=True).stdout
    return {int(pid) for pid in out.split()}


@contextlib.contextmanager
def hang_is_a_failure(seconds: int) -> Iterator[None]:
    """A context in which a call that does not return within `seconds` fails the test (SIGALRM) instead of hanging
    it."""
    def fail(signum: int, frame: Any) -> None:
        raise AssertionError(f"did not return within {seconds} s")
    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def fork_during_calls(busy: Callable[[], Any], again: Callable[[], Any], after_fork: str) -> None:
    """fork() while a thread is inside `busy` calls (holding the object's lock): the child's `again` must be the
    fork error, at once; never a hang on the lock the parent's thread held."""
    from gym2048 import G2048Error
    stop = threading.Event()
    calls = [0]

    def worker() -> None:
        while not stop.is_set():
            busy()
            calls[0] += 1

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        for _ in range(8):
            time.sleep(0.005)
            pid = os.fork()
            if pid == 0:  # the child: one thread, maybe a held lock
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
                signal.alarm(5)  # a hang is a failure, not a stuck test
                try:
                    again()
                    os._exit(2)
                except G2048Error as error:
                    os._exit(0 if after_fork in str(error) else 3)
                except BaseException:  # noqa: BLE001
                    os._exit(4)
            _, status = os.waitpid(pid, 0)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    finally:
        stop.set()
        thread.join()
    assert calls[0] > 0

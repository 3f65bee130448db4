"""Shared helpers of the Python tests: counting the server processes a test started, failing a call that hangs,
forking while a thread is inside calls, and the RL adapters over their packages or stand-ins of them."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
import types
from typing import Any, Callable, Iterator, Optional

import numpy as np
import pytest


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


# -- the adapters: the real packages when installed, else stand-ins of the base classes our adapters use ----------

class _PufferEnv:
    """What Gym2048Puffer uses of `pufferlib.PufferEnv`: buffers for `num_agents` of the single spaces."""

    def __init__(self, buf: Optional[dict[str, Any]] = None) -> None:
        n, space = self.num_agents, self.single_observation_space  # type: ignore[attr-defined]
        self.observations = np.zeros((n, *space.shape), space.dtype)
        self.rewards = np.zeros(n, np.float32)
        self.terminals = np.zeros(n, np.bool_)
        self.truncations = np.zeros(n, np.bool_)


class _VecEnv:
    """What Gym2048SB3VecEnv uses of SB3's `VecEnv`, its `seed` as SB3 words it."""

    def __init__(self, num_envs: int, observation_space: Any, action_space: Any) -> None:
        self.num_envs, self.observation_space, self.action_space = num_envs, observation_space, action_space
        self.render_mode = None
        self._reset_seeds()
        self._reset_options()

    def _reset_seeds(self) -> None:
        self._seeds: list[Optional[int]] = [None] * self.num_envs

    def _reset_options(self) -> None:
        self._options: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]

    def seed(self, seed: Optional[int] = None) -> list[Optional[int]]:
        if seed is None:
            seed = int(np.random.randint(0, 2**32 - 1, dtype=np.uint32))
        self._seeds = [seed + index for index in range(self.num_envs)]
        return self._seeds

    def step(self, actions: Any) -> Any:
        self.step_async(actions)  # type: ignore[attr-defined]
        return self.step_wait()  # type: ignore[attr-defined]


@pytest.fixture
def adapters(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """(Gym2048Puffer, Gym2048SB3VecEnv), imported over the installed packages or the stand-ins."""
    if importlib.util.find_spec("pufferlib") is None:
        monkeypatch.setitem(sys.modules, "pufferlib", types.SimpleNamespace(PufferEnv=_PufferEnv))
    if importlib.util.find_spec("stable_baselines3") is None:
        for name in ("stable_baselines3", "stable_baselines3.common", "stable_baselines3.common.vec_env"):
            monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
        base = types.ModuleType("stable_baselines3.common.vec_env.base_vec_env")
        base.VecEnv = _VecEnv  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, base.__name__, base)
    for module in ("gym2048.puffer", "gym2048.sb3"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    puffer, sb3 = importlib.import_module("gym2048.puffer"), importlib.import_module("gym2048.sb3")
    yield puffer.Gym2048Puffer, sb3.Gym2048SB3VecEnv
    for module in ("gym2048.puffer", "gym2048.sb3"):
        sys.modules.pop(module, None)


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless Chromium (tests/chromium.py), killed after the test; the test is skipped, saying why, where
    Chromium is not installed."""
    from chromium import Chromium, unavailable_reason
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with Chromium.start() as chromium:
        yield chromium

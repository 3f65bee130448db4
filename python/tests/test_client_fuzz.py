"""The protocol client against servers that misbehave: stopped, hung, dead, lying about ids, sending garbage or
endless lines. Every request must end by its deadline (plus the few seconds close() takes to kill a stopped
server), raise an error instead of a wrong answer, and leave no process behind. And the client's other
guarantees: threads take turns, a forked child is refused, close() returns from another thread."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from pathlib import Path

import pytest

from gym2048.client import G2048, G2048Error, find_binary

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = int(os.environ.get("G2048_FUZZ_SEED", "7"))
SESSIONS = int(os.environ.get("G2048_FUZZ_CLIENT_SESSIONS", "40"))
TIMEOUT = 0.4
# A request's deadline, then close() of a stopped server: terminate and kill, a grace period each.
SLACK = 5.0


@pytest.fixture(scope="module")
def double(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An executable that runs misbehaving_server.py, as a `g2048` binary would be run."""
    path = tmp_path_factory.mktemp("double") / "g2048"
    path.write_text(f"#!/bin/sh\nexec {sys.executable} {HERE}/misbehaving_server.py \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as status:
            return status.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_misbehaving_server_never_hangs_the_client_or_crosses_replies(double: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes: dict[str, int] = {}
    for session in range(SESSIONS):
        monkeypatch.setenv("G2048_DOUBLE_SEED", str(SEED * 1000 + session))
        client = G2048(binary=double, timeout=TIMEOUT)
        pid = client.pid
        for _ in range(12):
            start = time.monotonic()
            try:
                result = client.call("echo")
            except (G2048Error, ConnectionError, ValueError) as error:
                outcome = type(error).__name__
            else:
                # A result is only ever the answer to the request just made.
                assert result == {"answer_to": client._next_id}, result
                outcome = "answer"
            elapsed = time.monotonic() - start
            assert elapsed < TIMEOUT + SLACK, f"session {session}: a request took {elapsed:.1f} s"
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if outcome != "answer":
                break
        start = time.monotonic()
        client.close()
        assert time.monotonic() - start < SLACK, f"session {session}: close() took {time.monotonic() - start:.1f} s"
        deadline = time.monotonic() + SLACK
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(pid), f"session {session}: the server {pid} was left running"
    assert outcomes.get("answer", 0) > 10 and outcomes.get("G2048Error", 0) > 3, outcomes


def test_a_stopped_server_is_named_and_close_returns(double: str, monkeypatch: pytest.MonkeyPatch) -> None:
    client = G2048(binary=find_binary(), timeout=0.5)
    client.reset(seed=1)
    os.kill(client.pid, 19)  # SIGSTOP: the server is frozen
    start = time.monotonic()
    with pytest.raises(G2048Error, match=r"did not answer within 0.5 s; it is stopped"):
        client.step(0)
    assert time.monotonic() - start < 0.5 + SLACK
    with pytest.raises(G2048Error, match="closed"):
        client.step(0)
    client.close()


def test_close_from_another_thread_ends_a_blocked_request() -> None:
    client = G2048(binary=find_binary())  # the default, generous deadline
    client.reset(seed=1)
    os.kill(client.pid, 19)
    errors: list[BaseException] = []

    def request() -> None:
        try:
            client.step(0)
        except BaseException as error:  # noqa: BLE001 - whatever it is, the test reports it
            errors.append(error)

    thread = threading.Thread(target=request)
    thread.start()
    time.sleep(0.2)
    start = time.monotonic()
    client.close()
    thread.join(timeout=SLACK)
    assert not thread.is_alive() and time.monotonic() - start < SLACK
    assert len(errors) == 1 and isinstance(errors[0], (ConnectionError, G2048Error)), errors


def test_two_threads_take_turns_and_every_reply_is_their_own() -> None:
    client = G2048(binary=find_binary())
    client.reset(seed=3)
    failures: list[str] = []

    def ask(method: str, count: int) -> None:
        for _ in range(count):
            result = client.call(method)
            if method == "spec" and "num_envs" not in result or method == "render" and "text" not in result:
                failures.append(json.dumps(result)[:80])

    threads = [threading.Thread(target=ask, args=(method, 2000)) for method in ("spec", "render")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads) and not failures, failures[:3]
    client.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_is_refused_the_parents_pipe(tmp_path: Path) -> None:
    client = G2048(binary=find_binary())
    client.reset(seed=1)
    report = tmp_path / "child.txt"
    pid = os.fork()
    if pid == 0:  # the child: its use must be refused, and its exit must not stop the parent's server
        try:
            client.step(0)
            report.write_text("stepped")
        except G2048Error as error:
            report.write_text(str(error))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert "after a fork, make a new environment in the child" in report.read_text()
    assert client.step(1)["info"]  # the parent's server is still there
    client.close()


@pytest.mark.parametrize("reply, words", [
    (b"not json at all", "a line that is not JSON"),
    (b'{"jsonrpc":"2.0","id":2}', "neither a result nor an error"),
    (b'{"jsonrpc":"2.0","id":2,"error":"boom"}', "a malformed error"),
    (b'\xff\xfe', "a line that is not JSON"),
])
def test_a_malformed_reply_is_a_g2048_error_naming_what_came(tmp_path: Path, reply: bytes, words: str) -> None:
    """A server that answers with malformed lines: a G2048Error that names what was received, never a bare
    KeyError or JSONDecodeError."""
    server = tmp_path / "lying_server.py"
    server.write_text(
        "import sys, json\n"
        "for line in sys.stdin.buffer:\n"
        "    request = json.loads(line)\n"
        "    if request.get('method') == 'spec':\n"
        "        sys.stdout.buffer.write(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'result': {'num_envs': 1}}).encode() + b'\\n')\n"
        f"    else:\n        sys.stdout.buffer.write({reply!r} + b'\\n')\n"
        "    sys.stdout.buffer.flush()\n")
    wrapper = tmp_path / "g2048"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {server} \"$@\"\n")
    wrapper.chmod(0o755)
    client = G2048(binary=str(wrapper), timeout=5)
    with pytest.raises(G2048Error, match=words) as raised:
        client.call("reset")
    assert repr(reply[:10])[2:-1] in str(raised.value) or words in str(raised.value)
    assert client.closed

"""The ranking service in a child process, for the tests: started on an ephemeral port, killed as asked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any, Optional
from urllib.parse import urlencode

import gym2048

_TESTS = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(gym2048.__file__)))


def command(launcher: Optional[str] = None) -> list[str]:
    """How to run `python -m gym2048.rank` here (or the tests' script `launcher`, which runs it too)."""
    if launcher is not None:
        return [sys.executable, os.path.join(_TESTS, launcher)]
    return [sys.executable, "-m", "gym2048.rank"]


def environment() -> dict[str, str]:
    """The environment a child process needs to import this checkout's gym2048 and the tests' modules."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([_PACKAGE_ROOT, _TESTS]))


class Service:
    """`python -m gym2048.rank serve` on `db`, port 0 (or the tests' script `launcher`, which runs it too); `url`
    once it listens. `kill()` is kill -9."""

    def __init__(self, db: str, *arguments: str, launcher: Optional[str] = None) -> None:
        self.process = subprocess.Popen([*command(launcher), "serve", "--db", db, "--port", "0", *arguments],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(), text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "http://" not in line:
            self.process.kill()
            raise AssertionError(f"the service did not start: {line!r} {self.process.stderr.read() if self.process.stderr else ''}")
        self.url = line.split()[3]

    def kill(self) -> str:
        """kill -9 it; its stderr."""
        self.process.send_signal(signal.SIGKILL)
        _, errors = self.process.communicate(timeout=30)
        return errors

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.kill()

    def call(self, path: str, body: Optional[bytes] = None, **query: Any) -> tuple[int, Any]:
        """(status, JSON answer) of GET path (POST with `body`), with `query` as its parameters."""
        url = f"{self.url}{path}" + (f"?{urlencode(query)}" if query else "")
        request = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def submit(self, body: bytes, team: str = "team", agent: str = "agent", **query: Any) -> tuple[int, Any]:
        return self.call("/api/submissions", body, team=team, agent=agent, **query)

    def table(self, protocol: str, q: str = "") -> list[dict[str, Any]]:
        status, answer = self.call("/api/table", protocol=protocol, q=q)
        assert status == 200, answer
        rows: list[dict[str, Any]] = answer["rows"]
        return rows

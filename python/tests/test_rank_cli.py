"""`python -m gym2048.rank serve|submit|show`: help, exit codes, and a submission shown, against the service."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from typing import Any

import pytest

from rank_service import Service, command, environment
from rank_records import PROTOCOL, random_record


def rank(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(), *arguments], capture_output=True, text=True, env=environment(), timeout=120)


@pytest.mark.parametrize("command", ["serve", "submit", "show"])
def test_each_command_has_help(command: str) -> None:
    done = rank(command, "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m gym2048.rank " + command)


def test_usage_errors_exit_64_and_failures_1(tmp_path: Any) -> None:
    done = rank("submit", "--team", "t", "record.jsonl")
    assert done.returncode == 64 and "--agent" in done.stderr
    assert rank("rank").returncode == 64
    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    record = tmp_path / "record.jsonl"
    record.write_text("{}\n")
    done = rank("submit", "--url", f"http://127.0.0.1:{port}", "--team", "t", "--agent", "a", str(record))
    assert done.returncode == 1 and done.stderr.startswith("refused: no answer from") and done.stdout == ""
    done = rank("submit", "--team", "t", "--agent", "a", str(tmp_path / "absent.jsonl"))
    assert done.returncode == 1 and "absent.jsonl: no such file" in done.stderr
    done = rank("serve", "--db", str(tmp_path / "r.sqlite"), "--solution", "nothing")
    assert done.returncode == 1 and "PROTOCOL=FILE" in done.stderr
    (tmp_path / "garbage.sqlite").write_bytes(b"not a database" * 100)
    done = rank("serve", "--db", str(tmp_path / "garbage.sqlite"), "--port", "0")
    assert done.returncode == 1 and done.stderr.startswith("error: ") and "not a database" in done.stderr


def test_submit_then_show(tmp_path: Any) -> None:
    protocol = PROTOCOL
    path = str(tmp_path / "games.jsonl")
    random_record(3, path)
    with Service(str(tmp_path / "r.sqlite")) as service:
        done = rank("submit", "--url", service.url, "--team", "Blue", "--agent", "Dice", "--description", "random",
                    path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"submission 1: rank 1 in {protocol}\nrank  team  agent")
        again = rank("submit", "--url", service.url, "--team", "Blue", "--agent", "Dice", path)
        assert again.returncode == 1 and "refused: this record is already ranked (submission 1)" in again.stderr
        shown = rank("show", "--url", service.url, "--protocol", protocol)
        assert shown.returncode == 0 and shown.stdout.splitlines()[1].split()[:3] == ["1", "Blue", "Dice"]
        rows = json.loads(rank("show", "--url", service.url, "--protocol", protocol, "--json").stdout)
        assert [(row["team"], row["description"]) for row in rows] == [("Blue", "random")]
        assert json.loads(rank("show", "--url", service.url, "--protocol", protocol, "--search", "red",
                               "--json").stdout) == []
        missing = rank("show", "--url", service.url, "--protocol", "no-such-v1")
        assert missing.returncode == 1 and "unknown protocol no-such-v1" in missing.stderr
    assert os.path.exists(tmp_path / "r.sqlite")

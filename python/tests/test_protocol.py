"""End-to-end tests of `g2048 serve` through the protocol client `gym2048.client` (run by Tests/run-all.sh)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(REPO, "Examples", "python")

from gym2048.client import G2048, G2048Error, G2048ParamsError, find_binary


def test_client_speaks_every_method() -> None:
    with G2048() as env:
        spec = env.spec()
        assert spec["actions"] == ["up", "right", "down", "left"]
        assert spec["observation"]["shape"] == [4, 4]
        start = env.reset(seed=42)
        assert sum(v > 0 for row in start["observation"] for v in row) == 2
        step = env.step("left")
        assert set(step) == {"observation", "reward", "terminated", "truncated", "info"}
        assert step["info"]["steps"] == 1
        afterstates = env.afterstates()
        assert [a["action"] for a in afterstates] == ["up", "right", "down", "left"]
        assert [a["legal"] for a in afterstates] == step["info"]["action_mask"]
        assert "\n" in env.render()


def test_errors_raise_with_code_and_message() -> None:
    with G2048() as env:
        with pytest.raises(G2048Error) as error:
            env.step(0)
        assert error.value.code == -32001
        env.reset(seed=1)
        with pytest.raises(G2048Error) as error:
            env.step(7)
        assert error.value.code == -32602
        assert "action must be 0..3 or up/right/down/left, got 7" in error.value.message
        with pytest.raises(G2048Error) as error:
            env.make(rows=99)
        assert error.value.message == "invalid params: rows must be an integer from 2 to 8, got 99"
        assert env.step(0)["info"]["steps"] == 1  # the failures changed nothing


def test_same_seed_same_trajectory() -> None:
    def play() -> list[dict[str, Any]]:
        with G2048(rows=3, cols=5) as env:
            out = [env.reset(seed=9)]
            for i in range(40):
                out.append(env.step(i % 4))
                if out[-1]["terminated"]:
                    break
            return out
    assert play() == play()


def test_server_survives_bad_input_and_keeps_serving() -> None:
    binary = find_binary()
    garbage = [
        b"not json",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"step\",\"params\":{\"action\":\"x\"}}",
        b"\xff\xfe\x00binary",
        b"[" * 100000 + b"]" * 100000,
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"reset\",\"params\":{\"seed\":" + b"9" * 5000 + b"}}",
        b"\"\xc3\x28\"",
        b"x" * (3 << 20),  # over the 1 MiB limit given below
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"spec\"}",
    ]
    process = subprocess.run([binary, "serve", "--max-line-bytes", str(1 << 20)],
                             input=b"\n".join(garbage) + b"\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"reset\"",
                             capture_output=True, timeout=60)
    assert process.returncode == 0
    lines = [json.loads(line) for line in process.stdout.splitlines()]
    codes = [line.get("error", {}).get("code") for line in lines]
    assert codes == [-32700, -32602, -32700, -32700, -32602, -32700, -32600, None, -32700]
    assert lines[7]["id"] == 3 and lines[7]["result"]["protocol"] == "1.0"
    assert "longer than 1048576 bytes" in lines[6]["error"]["message"]


def test_huge_line_is_skipped_with_bounded_memory() -> None:
    binary = find_binary()
    process = subprocess.Popen([binary, "serve", "--max-line-bytes", "65536"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None  # both are pipes
    chunk = b"y" * (1 << 20)
    for _ in range(64):  # a 64 MiB line
        process.stdin.write(chunk)
    process.stdin.write(b"\n")
    process.stdin.flush()
    first = process.stdout.readline()
    # The server's own peak since its exec (VmHWM), read while it runs. Not its rusage: Linux carries a process's
    # peak across exec, so a child forked from a large test process reports that process's size.
    with open(f"/proc/{process.pid}/status") as status:
        peak_kb = int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
    process.stdin.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"close\"}\n")
    process.stdin.close()
    second = process.stdout.readline()
    process.wait(timeout=30)
    assert json.loads(first)["error"]["code"] == -32600
    assert json.loads(second)["result"] == {"closed": True}
    assert peak_kb < 200 * 1024  # far below the 64 MiB line


def test_unterminated_last_line_and_end_of_input_exit_cleanly() -> None:
    process = subprocess.run([find_binary(), "serve"], input=b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"spec\"}",
                             capture_output=True, timeout=30)
    assert process.returncode == 0
    assert json.loads(process.stdout)["id"] == 1


def test_random_agent_example_runs() -> None:
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "random_agent.py"), "--episodes", "3"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "3 episodes on 4x4: mean score" in out


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_agent_example_runs() -> None:
    out = subprocess.run(["node", os.path.join(REPO, "Examples", "node", "random_agent.js"), "2", "5"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "2 episodes: mean score" in out


def test_protocol_benchmark_smoke() -> None:
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "bench_protocol.py"), "--seconds", "0.2", "--reps", "1",
                          "--envs", "16", "--json"], capture_output=True, text=True, timeout=600, check=True).stdout
    figures = json.loads(out)
    for key in ("pipe_round_trips_per_second", "single_steps_per_second", "vector_steps_per_second", "peer_steps_per_second"):
        assert figures[key] > 0


def test_a_bad_vector_action_gets_the_servers_message_not_a_client_exception() -> None:
    with G2048(num_envs=4) as env:
        env.reset(seed=1)
        for actions, message in (([0, 1, 2, 9], "actions[3] must be 0..3 or up/right/down/left, got 9"),
                                 ([0, 1, 2, -1], "actions[3] must be 0..3 or up/right/down/left, got -1"),
                                 ([0, 1, 2], "actions must have 4 entries, got 3"),
                                 ("01x3", "actions[2] must be a digit 0..3, got 'x'")):
            with pytest.raises(G2048ParamsError) as error:
                env.step_vector(actions)
            assert error.value.code == -32602 and message in error.value.message
            assert isinstance(error.value, ValueError)
        assert env.step_vector([0, 1, 2, 3])["info"][0]["steps"] == 1  # the failures changed nothing


@pytest.mark.parametrize("content", [None, "not a program"])
def test_a_g2048_bin_that_is_not_an_executable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        content: Optional[str]) -> None:
    path = tmp_path / "g2048"
    if content is not None:
        path.write_text(content)  # a file, but not executable
    monkeypatch.setenv("G2048_BIN", str(path))
    with pytest.raises(G2048Error, match=f"G2048_BIN is '{path}', which is not an executable file"):
        find_binary()
    with pytest.raises(G2048Error, match="G2048_BIN"):
        G2048()


def test_a_relative_g2048_bin_runs_the_file_that_was_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # G2048_BIN=g2048 was checked as ./g2048 but Popen ran the g2048 on PATH.
    elsewhere = tmp_path / "path"
    elsewhere.mkdir()
    impostor = elsewhere / "g2048"
    impostor.write_text("#!/bin/sh\necho impostor >&2; exit 3\n")
    impostor.chmod(0o755)
    (tmp_path / "g2048").symlink_to(find_binary())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{elsewhere}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("G2048_BIN", "g2048")
    assert find_binary() == str(tmp_path / "g2048")
    with G2048() as env:
        assert env.reset(seed=1)["info"]["steps"] == 0


def test_g2048_bin_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    binary = find_binary()
    monkeypatch.setenv("G2048_BIN", binary)
    assert find_binary() == binary


def test_a_huge_line_under_an_address_space_limit_is_an_error_reply() -> None:
    """Under a 1 GB address-space limit, `serve --max-line-bytes 64 MiB` was accepted and one 40 MB JSON-array
    line aborted the server. The largest limit the process now accepts there is one whose lines it can parse: a
    line of numbers just under it gets its reply, a 40 MB one an error reply, and the server goes on."""
    import re
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_000_000_000, 1_000_000_000))

    refused = subprocess.run([find_binary(), "serve", "--max-line-bytes", str(64 << 20)], capture_output=True,
                             preexec_fn=limit, timeout=60, stdin=subprocess.DEVNULL)
    assert refused.returncode == 64
    # What the process can use moves a little from run to run: a little under the cap it stated.
    stated = re.search(rb"so at most (\d+)", refused.stderr)
    assert stated is not None, refused.stderr
    cap = int(stated.group(1)) * 9 // 10
    count = (cap - 100) // 2
    near = b'{"jsonrpc":"2.0","id":1,"method":"make","params":{"info":[' + b"1," * (count - 1) + b'1]}}\n'
    huge = b'{"jsonrpc":"2.0","id":2,"method":"make","params":{"info":[' + b"1," * 20_000_000 + b'1]}}\n'
    spec = b'{"jsonrpc":"2.0","id":3,"method":"spec"}\n'
    done = subprocess.run([find_binary(), "serve", "--max-line-bytes", str(cap)], input=near + huge + spec,
                          capture_output=True, preexec_fn=limit, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    replies = [json.loads(reply) for reply in done.stdout.splitlines()]
    assert replies[0]["id"] == 1 and replies[0]["error"]["code"] == -32602  # parsed, then refused: not field names
    assert replies[1]["error"]["code"] == -32600 and "longer than" in replies[1]["error"]["message"]
    assert replies[2]["id"] == 3 and "result" in replies[2]

"""`g2048 play --record` files replayed through `g2048 serve` by replay_record() (run by Tests/run-all.sh with pytest)."""

import json
import os
import subprocess

import pytest

from gym2048 import RecordMismatch, find_binary, read_record, replay_record


def play(tmp_path, *arguments, keys=None):
    """Run `g2048 play --record` with its best scores kept in tmp_path; returns the record's path."""
    record = str(tmp_path / "game.jsonl")
    environment = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"))
    process = subprocess.run([find_binary(), "play", "--record", record, *arguments],
                             input=keys.encode() if keys is not None else None,
                             stdin=None if keys is not None else subprocess.DEVNULL,
                             capture_output=True, env=environment, timeout=120)
    assert process.returncode == 0, process.stderr.decode()
    return record


def rewrite(path, change):
    """Apply `change(lines)` to the parsed lines of a record and write it back."""
    with open(path) as file:
        lines = [json.loads(line) for line in file]
    change(lines)
    with open(path, "w") as file:
        file.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


def test_agent_game_replays_exactly_through_the_server(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "3", "--rows", "3", "--cols", "4")
    episodes = read_record(record)
    assert len(episodes) == 1
    header = episodes[0]["header"]
    assert header["config"]["rows"] == 3 and header["config"]["cols"] == 4
    assert header["seed"] == 3 and header["player"] == "greedy"
    summary, = replay_record(record)
    assert summary["steps"] == len(episodes[0]["steps"]) > 0
    assert summary["score"] == episodes[0]["steps"][-1]["score"]
    assert summary["seed"] == 3


def test_piped_human_game_with_a_restart_replays_both_episodes(tmp_path):
    keys = "left\nup\nright\ndown\nleft\nr\nup\nup\nleft\nq\n"
    record = play(tmp_path, "--seed", "11", keys=keys)
    summaries = replay_record(record)
    assert [s["seed"] for s in summaries] == [11, 12]
    assert all(s["player"] == "human" for s in summaries)


def test_swift_replay_accepts_the_same_file(tmp_path):
    record = play(tmp_path, "--agent", "random", "--seed", "8")
    replay_record(record)
    process = subprocess.run([find_binary(), "replay", "--file", record, "--check"], capture_output=True, timeout=60)
    assert process.returncode == 0
    assert process.stdout.decode().startswith("verified: ")


def test_tampered_spawn_is_reported_at_its_step(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")

    def move_spawn(lines):
        step = lines[4]  # step 4
        step["spawn"]["value"] = 6 - step["spawn"]["value"]  # 2 <-> 4

    rewrite(record, move_spawn)
    with pytest.raises(RecordMismatch) as error:
        replay_record(record)
    assert error.value.step == 4
    assert "recorded spawn" in str(error.value)
    # The Swift replay reports the same step.
    process = subprocess.run([find_binary(), "replay", "--file", record], capture_output=True, timeout=60)
    assert process.returncode == 1
    assert ": step 4: " in process.stderr.decode()


def test_a_record_is_checked_as_it_is_read(tmp_path):
    # replay_record read a whole record (10 GB for 969 MB) before reporting a mismatch at step 1. It now checks
    # each line as it reads it: the mismatch at step 2 is reported though a malformed line and a line of 2 MiB
    # come after it, which a whole read would have stopped at first.
    record = play(tmp_path, "--agent", "random", "--seed", "5")
    with open(record) as file:
        lines = file.read().splitlines()
    step = json.loads(lines[2])
    step["reward"] += 4
    lines[2] = json.dumps(step, separators=(",", ":"))
    lines[-2:-2] = ["this is not JSON", " " * (2 << 20)]
    with open(record, "w") as file:
        file.write("\n".join(lines) + "\n")
    with pytest.raises(RecordMismatch) as error:
        replay_record(record)
    assert error.value.step == 2
    # Without the mismatch, the long line is refused by number rather than read whole.
    lines[2] = json.dumps(dict(step, reward=step["reward"] - 4), separators=(",", ":"))
    del lines[-4]
    with open(record, "w") as file:
        file.write("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=f"line {len(lines) - 2} is longer than 1048576 bytes"):
        replay_record(record)


def test_tampered_seed_is_reported_at_the_start(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")
    rewrite(record, lambda lines: lines[0].update(seed=6))
    with pytest.raises(RecordMismatch) as error:
        replay_record(record)
    assert error.value.step == 0


def test_truncated_record_is_a_value_error_naming_the_line(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "2")
    with open(record, "rb") as file:
        data = file.read()
    with open(record, "wb") as file:
        file.write(data[: len(data) // 2])
    line = data[: len(data) // 2].count(b"\n") + 1
    with pytest.raises(ValueError, match=f"line {line}: truncated record"):
        replay_record(record)


def test_record_ends_with_an_end_line_and_a_cut_at_any_line_boundary_is_truncated(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "6", "--rows", "3", "--cols", "3")
    with open(record, "rb") as file:
        lines = file.read().splitlines(keepends=True)
    end = json.loads(lines[-1])
    assert end["type"] == "end" and end["outcome"] == "game_over" and end["last_episode"] is True
    assert read_record(record)[0]["end"] == end
    for count in range(1, len(lines)):
        with open(record, "wb") as file:
            file.write(b"".join(lines[:count]))
        with pytest.raises(ValueError, match="truncated record"):
            read_record(record)
        process = subprocess.run([find_binary(), "replay", record, "--check"], capture_output=True, timeout=60)
        assert process.returncode == 1 and b"truncated record" in process.stderr


def test_crlf_record_replays(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "7")
    with open(record, "rb") as file:
        data = file.read()
    with open(record, "wb") as file:
        file.write(data.replace(b"\n", b"\r\n"))
    summary, = replay_record(record)
    assert summary["steps"] > 0 and not summary["version1"]
    process = subprocess.run([find_binary(), "replay", record, "--check"], capture_output=True, timeout=60)
    assert process.returncode == 0, process.stderr.decode()


def test_unknown_member_is_named(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")

    def misspell(lines):
        config = lines[0]["config"]
        config["invaaid_action"] = config.pop("invalid_action")

    rewrite(record, misspell)
    with pytest.raises(ValueError, match='unknown member "config.invaaid_action"'):
        read_record(record)
    process = subprocess.run([find_binary(), "replay", record], capture_output=True, timeout=60)
    assert process.returncode == 1
    assert 'unknown member "config.invaaid_action"' in process.stderr.decode()


def test_version_1_record_without_end_line_still_replays_with_a_note(tmp_path):
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")

    def downgrade(lines):
        lines[0]["version"] = 1
        assert lines.pop()["type"] == "end"

    rewrite(record, downgrade)
    summary, = replay_record(record)
    assert summary["version1"] and read_record(record)[0]["end"] is None
    process = subprocess.run([find_binary(), "replay", record, "--check"], capture_output=True, timeout=60)
    assert process.returncode == 0
    assert process.stdout.decode().startswith("verified: ")
    assert process.stderr.decode().startswith(f"note: {record} is a version 1 record")

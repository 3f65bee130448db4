"""`g2048 play --record` files replayed through `g2048 serve` by replay_record() (run by Tests/run-all.sh with pytest)."""

from __future__ import annotations

import json
import re
import os
import subprocess
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from gym2048 import G2048Error, RecordMismatch, find_binary, read_record, replay_record


def play(tmp_path: Path, *arguments: str, keys: Optional[str] = None) -> str:
    """Run `g2048 play --record` with its best scores kept in tmp_path; returns the record's path."""
    record = str(tmp_path / "game.jsonl")
    environment = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"))
    process = subprocess.run([find_binary(), "play", "--record", record, *arguments],
                             input=keys.encode() if keys is not None else None,
                             stdin=None if keys is not None else subprocess.DEVNULL,
                             capture_output=True, env=environment, timeout=120)
    assert process.returncode == 0, process.stderr.decode()
    return record


def rewrite(path: str, change: Callable[[list[dict[str, Any]]], object]) -> None:
    """Apply `change(lines)` to the parsed lines of a record and write it back."""
    with open(path) as file:
        lines = [json.loads(line) for line in file]
    change(lines)
    with open(path, "w") as file:
        file.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


def test_agent_game_replays_exactly_through_the_server(tmp_path: Path) -> None:
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


def test_piped_human_game_with_a_restart_replays_both_episodes(tmp_path: Path) -> None:
    keys = "left\nup\nright\ndown\nleft\nr\nup\nup\nleft\nq\n"
    record = play(tmp_path, "--seed", "11", keys=keys)
    summaries = replay_record(record)
    assert [s["seed"] for s in summaries] == [11, 12]
    assert all(s["player"] == "human" for s in summaries)


def test_swift_replay_accepts_the_same_file(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "random", "--seed", "8")
    replay_record(record)
    process = subprocess.run([find_binary(), "replay", "--file", record, "--check"], capture_output=True, timeout=60)
    assert process.returncode == 0
    assert process.stdout.decode().startswith("verified: ")


def test_tampered_spawn_is_reported_at_its_step(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")

    def move_spawn(lines: list[dict[str, Any]]) -> None:
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


def test_a_record_is_checked_as_it_is_read(tmp_path: Path) -> None:
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


def test_tampered_seed_is_reported_at_the_start(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")
    rewrite(record, lambda lines: lines[0].update(seed=6))
    with pytest.raises(RecordMismatch) as error:
        replay_record(record)
    assert error.value.step == 0


def test_truncated_record_is_a_value_error_naming_the_line(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "greedy", "--seed", "2")
    with open(record, "rb") as file:
        data = file.read()
    with open(record, "wb") as file:
        file.write(data[: len(data) // 2])
    line = data[: len(data) // 2].count(b"\n") + 1
    with pytest.raises(ValueError, match=f"line {line}: truncated record"):
        replay_record(record)


def test_record_ends_with_an_end_line_and_a_cut_at_any_line_boundary_is_truncated(tmp_path: Path) -> None:
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


def test_crlf_record_replays(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "greedy", "--seed", "7")
    with open(record, "rb") as file:
        data = file.read()
    with open(record, "wb") as file:
        file.write(data.replace(b"\n", b"\r\n"))
    summary, = replay_record(record)
    assert summary["steps"] > 0 and not summary["version1"]
    process = subprocess.run([find_binary(), "replay", record, "--check"], capture_output=True, timeout=60)
    assert process.returncode == 0, process.stderr.decode()


def test_unknown_member_is_named(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")

    def misspell(lines: list[dict[str, Any]]) -> None:
        config = lines[0]["config"]
        config["invaaid_action"] = config.pop("invalid_action")

    rewrite(record, misspell)
    with pytest.raises(ValueError, match='unknown member "config.invaaid_action"'):
        read_record(record)
    process = subprocess.run([find_binary(), "replay", record], capture_output=True, timeout=60)
    assert process.returncode == 1
    assert 'unknown member "config.invaaid_action"' in process.stderr.decode()


def test_version_1_record_without_end_line_still_replays_with_a_note(tmp_path: Path) -> None:
    record = play(tmp_path, "--agent", "greedy", "--seed", "5")

    def downgrade(lines: list[dict[str, Any]]) -> None:
        lines[0]["version"] = 1
        assert lines.pop()["type"] == "end"

    rewrite(record, downgrade)
    summary, = replay_record(record)
    assert summary["version1"] and read_record(record)[0]["end"] is None
    process = subprocess.run([find_binary(), "replay", record, "--check"], capture_output=True, timeout=60)
    assert process.returncode == 0
    assert process.stdout.decode().startswith("verified: ")
    assert process.stderr.decode().startswith(f"note: {record} is a version 1 record")


def play_memorize(tmp_path: Path, *arguments: str, keys: Optional[str] = None) -> str:
    """Run `g2048 play --game memorize --record`; returns the record's path."""
    return play(tmp_path, "--game", "memorize", *arguments, keys=keys)


def test_memorize_record_replays_through_the_server_and_swift_alike(tmp_path: Path) -> None:
    record = play_memorize(tmp_path, "--agent", "perfect", "--seed", "5", "--rows", "4", "--cols", "4")
    episode, = read_record(record)
    assert episode["header"]["game"] == "memorize" and episode["end"]["outcome"] == "finished"
    summary, = replay_record(record)
    assert summary == {"game": "memorize", "seed": 5, "steps": len(episode["steps"]), "player": "perfect",
                       "version1": False, "moves": episode["end"]["moves"], "pairs": 8}
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 0 and f"{summary['steps']} steps reproduce exactly from seed 5" in swift.stdout
    # The same seed and cards through Gymnasium give the same rewards.
    import gymnasium
    import gym2048  # noqa: F401  (registers the environments)
    env = gymnasium.make("Memorize-v0", rows=4, cols=4)
    env.reset(seed=5)
    assert [env.step(step["card"])[1] for step in episode["steps"]] == [step["reward"] for step in episode["steps"]]
    env.close()


def test_memorize_deals_replay_and_a_forged_content_is_found(tmp_path: Path) -> None:
    record = play_memorize(tmp_path, "--seed", "2", "--rows", "2", "--cols", "3", keys="0\n1\n2\nr\n3\n4\nq\n")
    assert [s["seed"] for s in replay_record(record)] == [2, 3]

    rewrite(record, lambda lines: lines[1].update(content=(lines[1]["content"] + 1) % 3))
    with pytest.raises(RecordMismatch, match=r"episode 1, step 1: card 0: recorded content \d, but the recorded deal"):
        replay_record(record)
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 1 and "step 1: card 0: recorded content " in swift.stderr, swift.stderr


def test_memorize_record_forgeries_are_refused_by_name(tmp_path: Path) -> None:
    record = play_memorize(tmp_path, "--agent", "random", "--seed", "4", "--rows", "2", "--cols", "2")
    with open(record) as file:
        original = file.read()

    def check(change: Callable[[str], str], message: str) -> None:
        with open(record, "w") as file:
            file.write(change(original))
        with pytest.raises(ValueError, match=message):
            replay_record(record)

    check(lambda text: text.replace('"reveal_seen"', '"colour"'), r'unknown member "config.colour"')
    check(lambda text: text.replace('"game":"memorize"', '"game":"chess"'), r'"game" must be 2048 or memorize')
    check(lambda text: text.replace('"outcome":"finished"', '"outcome":"won"'),
          r'"outcome" must be finished, truncated or stopped')
    check(lambda text: text.replace('"version":2', '"version":1'), r"unsupported record version 1")
    check(lambda text: text.replace('"deck":[[', '"deck":[7,['), r'"deck" must be 2 rows of 2 card contents')
    # A deal that cannot be one is refused at the header, as g2048 replay refuses it, whatever cards are turned.
    deck = json.loads(original.splitlines()[0])["deck"]
    for forged, message in (([[0, 0], [0, 1]], "each content 0 to 1 twice"), ([[0, 1], [1, 2]], "from 0 to 1, got 2"),
                            ([[0, 1, 0, 1]], "2 rows of 2")):
        check(lambda text: text.replace(json.dumps(deck, separators=(",", ":")), json.dumps(forged, separators=(",", ":")), 1),
              message)
    check(lambda text: text.replace('"rows":2,', '', 1), r'missing "config.rows"')
    (tmp_path / "2048").mkdir()
    game2048 = play(tmp_path / "2048", "--agent", "greedy", "--seed", "1", "--rows", "2", "--cols", "2")
    with open(game2048) as file:
        first = file.read().replace('"last_episode":true', '"last_episode":false')
    check(lambda text: first + text, r"a memorize episode in a record of 2048")
    with open(record, "w") as file:
        file.write(original)
    with pytest.raises(RecordMismatch, match=r"step 2: card \d+: recorded reward 5"):
        rewrite(record, lambda lines: lines[2].update(reward=5))
        replay_record(record)


def mutations(lines: list[dict[str, Any]], seed: int, count: int) -> list[list[dict[str, Any]]]:
    """`count` seeded damaged copies of a record's lines: a member removed, or its value replaced by another type
    or an out-of-range number (a header's config and deal, and a step's spawn, too)."""
    import copy
    import random
    rng = random.Random(seed)
    values: list[Any] = [None, "x", -1, 0, 1, 2**64, 1.5, True, [], {}, [[0]], [[]], [[0, 0], [1]], [["a"]]]
    out = []
    for _ in range(count):
        damaged = copy.deepcopy(lines)
        line = rng.choice(damaged)
        target = line
        if line["type"] == "step" and isinstance(line.get("spawn"), dict) and rng.random() < 0.3:
            target = line["spawn"]
        elif line["type"] == "header" and rng.random() < 0.4:
            target = line["config"] if rng.random() < 0.5 else line
            if target is line and "deck" in line and rng.random() < 0.5:
                line["deck"] = rng.choice([[[1, 0]], [[0, 0], [1, 1]], [[0, 1, 0]], [[0, 1], [1, 0], [2, 2]], [[-1, 0], [0, 1]],
                                           [[0, 1], [0, 1]], [[5, 5], [6, 6]], [[0, 0], [1]]])
                out.append(damaged)
                continue
        name = rng.choice(sorted(target))
        if rng.random() < 0.2:
            del target[name]
        else:
            target[name] = rng.choice(values)
        out.append(damaged)
    return out


def test_memorize_records_are_judged_as_g2048_replay_judges_them(tmp_path: Path) -> None:
    """Seeded damage to a Memorize record: the Python replay accepts exactly what `g2048 replay --check` accepts,
    and refuses the rest with a ValueError naming the line or a RecordMismatch (never a bare TypeError, IndexError
    or KeyError)."""
    record = play_memorize(tmp_path, "--agent", "random", "--seed", "4", "--rows", "2", "--cols", "2")
    differ = judged_differently(record, "7", "150")
    assert not differ, differ


def judged(record: str) -> tuple[str, str]:
    """How the Python replay and `g2048 replay --check` judge a record: each "accepted", "refused: <message>" or
    (Python only) "crashed: <error>" for any error that is not the package's record error naming a line or step."""
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    try:
        replay_record(record)
        python = "accepted"
    except RecordMismatch as error:
        python = f"refused: {error}"
    except ValueError as error:
        named = re.search(r"line \d+: ", str(error)) and not isinstance(error, G2048Error)
        python = f"{'refused' if named else 'crashed'}: {type(error).__name__}: {error}"
    except Exception as error:  # noqa: BLE001
        python = f"crashed: {type(error).__name__}: {error}"
    return python, "accepted" if swift.returncode == 0 else f"refused: {swift.stderr.strip()[:200]}"


def judged_differently(record: str, seed: str, count: str) -> str:
    """Where seeded damage to `record` (G2048_FUZZ_SEED, G2048_FUZZ_RECORDS copies, `seed` and `count` unless
    set) is judged otherwise by the Python replay and `g2048 replay --check`, or crashes the Python replay."""
    with open(record) as file:
        lines = [json.loads(line) for line in file]
    damaged = record + ".damaged.jsonl"
    differ = []
    total = int(os.environ.get("G2048_FUZZ_RECORDS", count))
    for index, mutated in enumerate(mutations(lines, int(os.environ.get("G2048_FUZZ_SEED", seed)), total)):
        with open(damaged, "w") as file:
            file.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in mutated))
        python, swift = judged(damaged)
        if python.startswith("crashed") or (python == "accepted") != (swift == "accepted"):
            differ.append(f"mutation {index}: python {python}; g2048 replay {swift}")
    return "\n".join(differ[:20]) + f"\n({len(differ)} differ)" if differ else ""


def test_2048_records_are_judged_as_g2048_replay_judges_them(tmp_path: Path) -> None:
    """Seeded damage to a 2048 record (members removed, or given another type or an out-of-range value, in the
    header, its config, a step and its spawn, and the end line): the Python replay accepts exactly what
    `g2048 replay --check` accepts, and refuses the rest with a ValueError naming the line or a RecordMismatch
    (never a bare TypeError, IndexError or KeyError, nor the server's refusal of a config)."""
    record = play(tmp_path, "--rows", "2", "--cols", "2", "--agent", "random", "--seed", "3")
    differ = judged_differently(record, "11", "200")
    assert not differ, differ


def test_2048_record_forgeries_are_refused_by_name(tmp_path: Path) -> None:
    record = play(tmp_path, "--rows", "2", "--cols", "2", "--agent", "random", "--seed", "3")
    with open(record) as file:
        original = file.read()
    step = original.splitlines()[1]
    for old, new, message in (
            ('"target_tile":2048', '"target_tile":0', r'line 1: "target_tile" must be an integer from 2 to \d+, got 0'),
            ('"target_tile":2048', '"target_tile":true', r'line 1: "target_tile" must be an integer, got true'),
            (',"player":"random"', '', r'line 1: missing "player"'),
            ('"invalid_action_penalty":0', '"invalid_action_penalty":-1',
             r'line 1: "config.invalid_action_penalty" must be an integer from 0 to \d+, got -1'),
            ('"initial_tiles":2', '"initial_tiles":5', r'line 1: "config": .*initial_tiles'),
            (step, re.sub(r'"action":"\w+"', '"action":[1]', step),
             r'line 2: "action" must be up, right, down, left or 0..3, got \[1\]'),
            (step, re.sub(r'"action":"\w+"', '"action":{"a":1}', step),
             r'line 2: "action" must be up, right, down, left or 0..3, got \{"a": 1\}'),
            (step, re.sub(r'"spawn":\{"cell":\d+', '"spawn":{"cell":4', step),
             r'line 2: "spawn.cell" must be an integer from 0 to 3, got 4')):
        forged = str(tmp_path / "forged.jsonl")
        with open(forged, "w") as file:
            file.write(original.replace(old, new, 1))
        assert old in original and old != new
        with pytest.raises(ValueError, match=message):
            replay_record(forged)
        # g2048 replay refuses the same forgeries (the penalty too: every integer within its declared range).
        swift = judged(forged)[1]
        assert swift.startswith("refused: "), swift

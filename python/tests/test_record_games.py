"""Every game the engine lists, recorded by `g2048 play --record` and replayed by replay_record(): a clean record
reproduces, and a forged member of the game's own is refused as `g2048 replay` refuses it, in its words (run by
Tests/run-all.sh with pytest)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gym2048 import RecordMismatch, find_binary, read_record, replay_record
from gym2048.native import CallSession, games_table

from test_record import play, rewrite

#: The games the engine serves, the default first.
GAMES = [entry["name"] for entry in games_table()]


def spec(game: str) -> dict[str, Any]:
    """The game's `spec` with its defaults, from the engine in this process."""
    session = CallSession({"game": game})
    try:
        result: dict[str, Any] = session.call("spec")
        return result
    finally:
        session.close()


def swift_refusal(record: str) -> str:
    """What `g2048 replay --check` says is wrong with a record: `start: ...` or `step N: ...`."""
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 1, swift.stdout + swift.stderr
    found = re.search(r": ((?:start|step \d+): .*) \(the record does not reproduce", swift.stderr)
    assert found, swift.stderr
    return found.group(1)


def forged(value: Any) -> Any:
    """Another value of the same JSON type: an integer plus one, a list reversed at every depth."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, list):
        return [forged(item) if isinstance(item, list) else item for item in reversed(value)]
    return f"{value}x"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_records_and_replays_clean(tmp_path: Path, game: str) -> None:
    record = play(tmp_path, "--game", game, "--agent", "random", "--seed", "6")
    episode, = read_record(record)
    summary, = replay_record(record)
    assert summary["game"] == game and summary["seed"] == 6 and summary["player"] == "random"
    assert summary["steps"] == len(episode["steps"]) > 0 and not summary["version1"]
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 0, swift.stderr


@pytest.mark.parametrize("game", GAMES)
def test_a_forged_member_is_refused_in_the_engines_words(tmp_path: Path, game: str) -> None:
    """Each of the game's own members (the `record` layout of its `spec`), forged in turn in the header, the first
    step or the end line: the Python replay refuses it with `g2048 replay`'s words. A game with 2048's lines (its
    `spec` gives `rules_version`) declares none: a forged score is refused in the words those lines always had."""
    record = play(tmp_path, "--game", game, "--agent", "random", "--seed", "6")
    with open(record) as file:
        original = file.read()
    if "rules_version" in spec(game):
        rewrite(record, lambda lines: lines[1].update(score=lines[1]["score"] + 2))
        with pytest.raises(RecordMismatch, match=r"episode 1, step 1: \w+: recorded score \d+, replay gives \d+"):
            replay_record(record)
        swift_refusal(record)
        return
    layout = spec(game)["record"]
    where = {"header": 0, "step": 1, "end": -1}
    for part, index in where.items():
        for name in layout[part]:
            if name == "reward":  # every record's member, not the game's own
                continue
            value = json.loads(original.splitlines()[index])[name]
            assert forged(value) != value, (name, value)
            with open(record, "w") as file:
                file.write(original)
            rewrite(record, lambda lines: lines[index].update({name: forged(value)}))
            swift = swift_refusal(record)
            with pytest.raises(RecordMismatch) as refused:
                replay_record(record)
            python = str(refused.value)
            if game == "memorize" and name == "content":
                # The card's content is checked against the recorded deal first, in the words it always had.
                assert python.startswith("episode 1, " + swift.split(", ")[0] + ", but the recorded deal has "), python
            else:
                assert python == "episode 1, " + swift, (python, swift)


@pytest.mark.parametrize("game", [game for game in GAMES if "rules_version" not in spec(game)])
def test_a_record_older_than_an_option_replays_with_the_value_it_was_played_with(tmp_path: Path, game: str) -> None:
    """A declared game's record written before the game had an option (`spec`'s `record`'s `options_before`) lacks
    it in `config`, or gives it `null`: it reads and replays with the value those games played with, as
    `g2048 replay` reads it."""
    before = spec(game)["record"]["options_before"]
    assert before
    record = play(tmp_path, "--game", game, "--agent", "random", "--seed", "6")
    summary, = replay_record(record)
    rewrite(record, lambda lines: [line["config"].pop(name) for line in lines if line["type"] == "header"
                                   for name in before])
    assert not set(before) & set(read_record(record)[0]["header"]["config"])
    assert replay_record(record) == [summary]
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 0, swift.stderr
    rewrite(record, lambda lines: [line["config"].update(dict.fromkeys(before)) for line in lines
                                   if line["type"] == "header"])
    assert replay_record(record) == [summary]
    swift = subprocess.run([find_binary(), "replay", "--check", record], capture_output=True, text=True, timeout=60)
    assert swift.returncode == 0, swift.stderr

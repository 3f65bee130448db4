"""Games records from Python: `evaluate(record=)` writes through the engine the record `g2048 eval --record` writes
for the same games, `verify_games` replays it, and every forgery is refused with the engine's reason."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import numpy as np
import pytest

import gym2048
from gym2048 import RecordRefused, TrainedPlayer, evaluate, find_binary, protocols, verify_games
from gym2048.games_record import games_record


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("weights") / "3x3.bin")
    subprocess.run([find_binary(), "train", "--rows", "3", "--games", "300", "--seed", "3", "--threads", "1",
                    "--table-learning", "games", "--out", path], check=True, capture_output=True)
    return path


def lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as file:
        return file.read().splitlines()


def test_the_protocols_are_the_engines() -> None:
    names = [entry["name"] for entry in protocols()]
    assert names == ["2048-3x3-v1", "2048-4x4-v1", "memorize-4x4-v1"]
    first = protocols()[0]
    assert first["config"]["rows"] == 3 and first["games"] == 1000 and first["game"] == "2048"


def test_python_and_the_command_line_record_the_same_games(weights: str, tmp_path: Any) -> None:
    player = TrainedPlayer(weights)
    ours = str(tmp_path / "python.jsonl")
    report = evaluate(player.policy(), protocol="2048-3x3-v1", record=ours, name="ntuple, greedy", batch=300)
    theirs = str(tmp_path / "cli.jsonl")
    subprocess.run([find_binary(), "eval", "--weights", weights, "--protocol", "2048-3x3-v1", "--record", theirs,
                    "--threads", "1"], check=True, capture_output=True)
    python_lines, cli_lines = lines(ours), lines(theirs)
    assert len(python_lines) == 1001
    assert json.loads(python_lines[0])["player"] == "ntuple, greedy"
    # Named as the CLI names its player, the records are the same bytes.
    assert python_lines == cli_lines
    verified = verify_games(open(ours, "rb").read(), protocol="2048-3x3-v1")
    assert verified["games"] == 1000 and verified["summary"]["mean"] == pytest.approx(report["mean_score"])
    assert [game["score"] for game in verified["results"]][:3] == [json.loads(line)["score"] for line in python_lines[1:4]]
    player.close()


def test_forgeries_are_refused_with_the_engines_reason(tmp_path: Any) -> None:
    path = str(tmp_path / "random.jsonl")
    rng = np.random.default_rng(5)

    def random_legal(observations: Any, masks: Any) -> Any:
        scores = rng.random(masks.shape) * masks
        return np.argmax(scores, axis=1)

    evaluate(random_legal, protocol="2048-3x3-v1", record=path)
    original = open(path, "rb").read()
    assert verify_games(original)["player"] == "random_legal"
    header, first, *rest = original.decode().splitlines()
    game = json.loads(first)
    edited = dict(game, score=game["score"] + 4)
    cases = {
        "edited score": (json.dumps(edited, separators=(",", ":")), f"the record says score {game['score'] + 4}, the replay gives"),
        "another seed": (first.replace(f'"seed":{game["seed"]}', '"seed":12'), "the seed is not the protocol's"),
    }
    for name, (line, reason) in cases.items():
        forged = "\n".join([header, line, *rest]) + "\n"
        with pytest.raises(RecordRefused, match=reason):
            verify_games(forged.encode())
    with pytest.raises(RecordRefused, match="the record was played under 2048-3x3-v1, not 2048-4x4-v1"):
        verify_games(original, protocol="2048-4x4-v1")
    with pytest.raises(RecordRefused, match=r"truncated record: the header announces 1000 games, the file holds 999"):
        verify_games("\n".join([header, first, *rest[:-1]]).encode() + b"\n")
    with pytest.raises(ValueError, match="unknown protocol 'nope'"):
        evaluate(random_legal, protocol="nope")
    with pytest.raises(ValueError, match="sets the rules, the games and their seeds: drop games, rows"):
        evaluate(random_legal, games=5, rows=3, protocol="2048-3x3-v1")
    with pytest.raises(TypeError):
        verify_games("text")  # type: ignore[arg-type]


def test_the_engine_writes_only_games_that_replay(tmp_path: Any) -> None:
    path = str(tmp_path / "first.jsonl")
    evaluate(lambda observations, masks: np.argmax(masks, axis=1), games=2, seed=4, rows=2, cols=3, record=path,
             name="first legal")
    header, *games = lines(path)
    config = json.loads(header)["config"]
    chosen = [json.loads(line) for line in games]
    actions = [np.array([int(c) for c in game["actions"]]) for game in chosen]
    again = games_record("2048", config, "first legal", [game["seed"] for game in chosen], actions)
    assert again.splitlines() == [header, *games]
    with pytest.raises(RecordRefused, match=r"game 0 \(seed \d+\): the episode goes on after the record's 1 actions"):
        games_record("2048", config, "p", [chosen[0]["seed"]], [actions[0][:1]])
    with pytest.raises(RecordRefused, match='unknown game "chess"'):
        games_record("chess", {}, "p", [1], [np.array([0])])
    with pytest.raises(RecordRefused, match="\"config.rows\" must be an integer from 2 to 8, got 1"):
        games_record("2048", {"rows": 1}, "p", [1], [np.array([0])])
    # numpy numbers in the config are the plain numbers; what JSON cannot spell is refused by name.
    numpy_config = {key: np.int64(value) if isinstance(value, int) and not isinstance(value, bool) else value
                    for key, value in config.items()}
    assert games_record("2048", numpy_config, "first legal", [game["seed"] for game in chosen],
                        actions).splitlines() == [header, *games]
    with pytest.raises(gym2048.G2048ParamsError, match=r"spawn_four_probability must be a finite number, got nan"):
        games_record("2048", {**config, "spawn_four_probability": float("nan")}, "p", [1], [np.array([0])])


def test_a_protocol_client_records_what_the_library_records() -> None:
    from gym2048 import G2048
    from gym2048.games_record import games_record
    played = []
    with G2048(rows=2, cols=3) as client:
        for seed in (11, 12, 13):
            result = client.reset(seed=seed)
            actions: list[int] = []
            while not result["terminated"] and not result.get("truncated", False):
                action = result["info"]["action_mask"].index(True)
                actions.append(action)
                result = client.step(action)
            played.append((seed, actions))
        served = client.games_record("client", played)
    config = json.loads(served.splitlines()[0])["config"]
    assert served == games_record("2048", config, "client", [s for s, _ in played], [np.array(a) for _, a in played])
    assert verify_games(served.encode())["games"] == 3

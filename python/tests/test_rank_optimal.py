"""The fraction of optimal play of submissions on a solved board, from their replayed games: exactly 1 for
optimal play, and for another player an estimate of what `evaluate_exact` computes by enumerating every board."""

from __future__ import annotations

import subprocess
from typing import Any, Callable

import numpy as np
import pytest

import gym2048
from gym2048.client import splitmix64
from gym2048.games_record import action_alphabet
from gym2048.rank.optimal import optimality, solution_fits


@pytest.fixture(scope="module")
def solution(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = str(tmp_path_factory.mktemp("solution") / "2x3.bin")
    subprocess.run([gym2048.find_binary(), "solve", "--rows", "2", "--cols", "3", "--out", path], check=True,
                   capture_output=True)
    return gym2048.Solution(path)


def solved_protocol(solution: Any, games: int) -> dict[str, Any]:
    return {"name": "2048-2x3-solved", "version": 1, "game": "2048", "config": dict(solution.rules), "seed": 11,
            "games": games, "summary": "a solved board"}


def first_legal(observations: Any, masks: Any) -> Any:
    """A deterministic player that is not optimal: the first legal move in action order."""
    return np.asarray(masks).argmax(axis=1)


def played(protocol: dict[str, Any], policy: Callable[[Any, Any], Any]) -> list[dict[str, Any]]:
    """The protocol's games played by `policy`, as verify_games gives its results."""
    from gym2048.game_envs import GameEnv
    env = GameEnv(game=protocol["game"], **{k: v for k, v in protocol["config"].items() if v is not None})
    results = []
    for index, seed in enumerate(splitmix64(protocol["seed"], protocol["games"])):
        observation, info = env.reset(seed=seed)
        actions, done = [], False
        while not done and env.action_masks().any():
            action = int(np.asarray(policy(observation[None], env.action_masks()[None])).reshape(-1)[0])
            observation, _, terminated, truncated, info = env.step(action)
            actions.append(action_alphabet()[action])
            done = terminated or truncated
        results.append({"index": index, "seed": seed, "score": info["score"], "steps": len(actions),
                        "outcome": "terminated", "actions": "".join(actions)})
    env.close()
    return results


def test_optimal_play_is_exactly_one(solution: Any) -> None:
    protocol = solved_protocol(solution, 200)
    assert optimality(solution, protocol, played(protocol, solution.policy())) == \
        {"fraction": pytest.approx(1.0, abs=1e-12), "suboptimal_moves": 0.0}


def test_another_player_is_estimated_as_the_exact_evaluation_computes(solution: Any) -> None:
    protocol = solved_protocol(solution, 1500)
    measured = optimality(solution, protocol, played(protocol, first_legal))
    exact = solution.evaluate_exact(first_legal)
    assert 0 < measured["fraction"] < 1 and 0 < measured["suboptimal_moves"] < 1
    assert measured["fraction"] == pytest.approx(exact["fraction_of_optimal"], abs=0.02)
    assert measured["suboptimal_moves"] == pytest.approx(exact["suboptimal_share"], abs=0.03)


def test_a_solution_fits_only_its_own_board_and_rules(solution: Any) -> None:
    protocol = solved_protocol(solution, 1)
    assert solution_fits(solution, protocol) is None
    assert "rows is 2, the protocol's 3" in str(solution_fits(solution, {**protocol, "config": {**protocol["config"],
                                                                                               "rows": 3}}))
    assert "the protocol plays memorize" in str(solution_fits(solution, {**protocol, "game": "memorize"}))


def test_the_service_stores_the_fraction_on_a_solved_protocol(solution: Any, tmp_path: Any,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from gym2048.rank.service import Ranking, Refused
    protocol = solved_protocol(solution, 50)
    results = played(protocol, solution.policy())
    scores = [float(game["score"]) for game in results]
    answer = {"game": "2048", "protocol": protocol["name"], "config": protocol["config"], "player": "optimal",
              "games": 50, "steps": sum(game["steps"] for game in results),
              "summary": {"mean": float(np.mean(scores)), "standard_error": 0.0, "ci95": [0.0, 1e9],
                          "median": float(np.median(scores)), "min": min(scores), "max": max(scores)},
              "results": results}
    monkeypatch.setattr(gym2048, "protocols", lambda: [protocol], raising=False)
    monkeypatch.setattr(gym2048, "verify_games", lambda data, protocol=None: answer, raising=False)
    monkeypatch.setattr(gym2048, "RecordRefused", ValueError, raising=False)
    with pytest.raises(ValueError, match="does not solve 2048-2x3-solved: its rows is 2, the protocol's 3"):
        monkeypatch.setattr(gym2048, "protocols", lambda: [{**protocol, "config": {**protocol["config"], "rows": 3}}])
        Ranking(str(tmp_path / "refused.sqlite"), {protocol["name"]: solution.path})
    monkeypatch.setattr(gym2048, "protocols", lambda: [protocol])
    ranking = Ranking(str(tmp_path / "r.sqlite"), {protocol["name"]: solution.path})
    row = ranking.submit(b"the record", {"team": "t", "agent": "optimal"})["row"]
    assert (row["optimal_fraction"], row["suboptimal_moves"]) == (pytest.approx(1.0), 0.0)
    with pytest.raises(Refused, match="already ranked"):
        ranking.submit(b"the record", {"team": "t", "agent": "again"})
    ranking.close()

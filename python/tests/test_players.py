"""Trained players from Python: a `g2048 train` network loaded in-process picks the moves `g2048 eval` picks, and
`gym2048.evaluate` reports a policy's games exactly as `g2048 eval --json` reports them."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import numpy as np
import pytest

import gym2048
from gym2048 import G2048Error, Gym2048VectorEnv, TrainedPlayer, evaluate, find_binary

from conftest import hang_is_a_failure


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Small networks trained for the test: 3x3 and 4x4 (the packed board's fast path)."""
    folder = tmp_path_factory.mktemp("weights")
    paths = {}
    for size, games in (("3x3", 400), ("4x4", 200)):
        rows, cols = size.split("x")
        path = str(folder / f"{size}.bin")
        # The 3x3 table learned from games, not swept: a player short of optimal, and a file of megabytes.
        table = ["--table-learning", "games"] if size == "3x3" else []
        subprocess.run([find_binary(), "train", "--rows", rows, "--cols", cols, "--games", str(games), "--seed", "3",
                        "--threads", "1", *table, "--out", path], check=True, capture_output=True)
        paths[size] = path
    return paths


def eval_json(path: str, games: int, seed: int, depth: int) -> dict[str, Any]:
    output = subprocess.run([find_binary(), "eval", "--weights", path, "--games", str(games), "--seed", str(seed),
                             "--depth", str(depth), "--threads", "1", "--json"],
                            check=True, capture_output=True, text=True).stdout
    return dict(json.loads(output))


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key not in ("moves_per_second", "seconds")}


@pytest.mark.parametrize("size", ["3x3", "4x4"])
@pytest.mark.parametrize("depth", [0, 1])
def test_evaluate_reports_what_g2048_eval_reports(weights: dict[str, str], size: str, depth: int) -> None:
    player = TrainedPlayer(weights[size])
    games = 30 if depth else 60
    # batch below the game count: the games are played in chunks, from the same seeds
    ours = evaluate(player.policy(depth), games=games, seed=9, batch=25, **player.rules)
    theirs = eval_json(weights[size], games, 9, depth)
    assert without_timing(ours) == without_timing(theirs)
    if depth == 0:  # the games through the server backend are the same games
        served = evaluate(player.policy(depth), games=games, seed=9, batch=64, backend="server", **player.rules)
        assert without_timing(served) == without_timing(theirs)
    assert ours["moves_per_second"] > 0
    player.close()


@pytest.mark.parametrize("size", ["3x3", "4x4"])
def test_greedy_moves_are_the_best_afterstate_by_the_networks_values(weights: dict[str, str], size: str) -> None:
    # The 3x3 network carries an afterstate table (g2048 train's default there): values read it too.
    player = TrainedPlayer(weights[size])
    rows, cols = (int(n) for n in size.split("x"))
    envs = Gym2048VectorEnv(64, observation="exponents", rows=rows, cols=cols)
    observations, _ = envs.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        observations, *_ = envs.step(rng.integers(0, 4, 64))
    after = envs.afterstates()
    moves = player.moves(observations)
    for index in range(64):
        legal = np.flatnonzero(after["legal"][index])
        if len(legal) == 0:
            assert moves[index] == -1
            continue
        values = player.values(after["observation"][index][legal])
        totals = after["reward"][index][legal] + values
        # the search keeps the first best move: ties go to the lower action
        assert moves[index] == legal[int(np.argmax(totals))]
    envs.close()
    player.close()


def test_bad_input_gets_a_precise_error(weights: dict[str, str], tmp_path: Any) -> None:
    with pytest.raises(G2048Error, match="no-such-file"):
        TrainedPlayer(str(tmp_path / "no-such-file.bin"))
    forged = tmp_path / "truncated.bin"
    forged.write_bytes(open(weights["3x3"], "rb").read()[:100])
    with pytest.raises(G2048Error, match="truncated"):
        TrainedPlayer(str(forged))
    player = TrainedPlayer(weights["3x3"])
    with pytest.raises(ValueError, match=r"boards must have shape \(n, 3, 3\)"):
        player.moves(np.zeros((2, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="tile exponents 0..50, got 51..51"):
        player.values(np.full((1, 3, 3), 51))
    with pytest.raises(TypeError, match="integer tile exponents"):
        player.values(np.zeros((1, 3, 3), np.float32))
    with pytest.raises(G2048Error, match="depth must be an integer from 0 to 8, got 9"):
        player.moves(np.zeros((1, 3, 3), np.uint8), depth=9)
    assert player.moves(np.zeros((0, 3, 3), np.uint8)).shape == (0,)
    assert player.moves(np.zeros((3, 3), np.uint8)).tolist() == [-1]  # one board, no tile: no legal move
    # a player's handle is not a session's
    from gym2048.native import library
    assert player._handle is not None
    assert library().g2048_destroy(player._handle) != 0
    assert b"invalid handle" in library().g2048_last_error()
    board = np.zeros((1, 3, 3), np.uint8)
    assert library().g2048_player_values(player._handle, board.ctypes.data, 1, None) != 0
    assert library().g2048_last_error().decode() == "invalid params: values must not be NULL"
    assert library().g2048_player_moves(player._handle, board.ctypes.data, 1, 0, None) != 0
    assert library().g2048_last_error().decode() == "invalid params: moves must not be NULL"
    player.close()
    player.close()
    with pytest.raises(G2048Error, match="closed"):
        player.moves(np.zeros((1, 3, 3), np.uint8))
    with pytest.raises(ValueError, match="games must be an integer from 1"):
        evaluate(lambda o, m: np.zeros(len(o), np.int64), games=0)


def test_a_python_policy_is_measured_the_same_way_and_named() -> None:
    def first_legal(observations: Any, masks: Any) -> Any:
        return np.argmax(masks, axis=1)
    report = evaluate(first_legal, games=50, seed=2, rows=3, cols=3, name='first "legal" move')
    assert report["player"] == 'first "legal" move' and report["board"] == "3x3" and report["games"] == 50
    again = evaluate(first_legal, games=50, seed=2, rows=3, cols=3, batch=7)
    assert without_timing(again) == {**without_timing(report), "player": "first_legal"}
    with pytest.raises(ValueError, match="returned 1 actions for"):
        evaluate(lambda o, m: np.zeros(1, np.int64), games=5, rows=3, cols=3)


def test_a_forked_child_is_told_to_load_the_player_again(weights: dict[str, str]) -> None:
    player = TrainedPlayer(weights["3x3"])
    pid = os.fork()
    if pid == 0:
        try:
            player.moves(np.zeros((1, 3, 3), np.uint8))
            os._exit(1)
        except G2048Error as error:
            os._exit(0 if "after a fork, load it again" in str(error) else 2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert gym2048.TrainedPlayer is TrainedPlayer
    player.close()


def test_a_policy_that_makes_an_illegal_move_is_refused_not_looped() -> None:
    """Always `up` on 2x2 boards: under the default invalid_action "noop" an illegal move changes nothing, so the
    games would never end; `evaluate` names the move, the board and the rule instead, as `g2048 eval` does."""
    with hang_is_a_failure(20):
        with pytest.raises(ValueError, match=r"the policy gave 0 \(up\) for board \d+ .*where it is not legal"):
            evaluate(lambda o, m: np.zeros(len(o), np.int64), games=4, rows=2, cols=2)
        for backend in ("inprocess", "server"):
            with pytest.raises(ValueError, match="where it is not legal"):
                evaluate(lambda o, m: np.zeros(len(o), np.int64), games=4, rows=2, cols=2, backend=backend,
                         invalid_action="terminate")


def test_evaluate_takes_integers_exactly() -> None:
    """The number rule at `evaluate`'s door: float actions, a float, bool or text seed are refused, never cast."""
    def first_legal(observations: Any, masks: Any) -> Any:
        return np.argmax(masks, axis=1)
    with pytest.raises(TypeError, match="actions must be integers 0..3.*got dtype float64"):
        evaluate(lambda o, m: np.argmax(m, axis=1) + 0.25, games=3, rows=3, cols=3)
    with pytest.raises(TypeError, match="actions must be integers 0..3.*got dtype bool"):
        evaluate(lambda o, m: m[:, 0], games=3, rows=3, cols=3)
    with pytest.raises(ValueError, match=r"actions\[0\] must be 0..3.*got 4"):
        evaluate(lambda o, m: np.full(len(o), 4), games=3, rows=3, cols=3)
    for seed in (1.5, True, "2", 2.0):
        with pytest.raises(TypeError, match="seed must be an integer"):
            evaluate(first_legal, games=3, seed=seed, rows=3, cols=3)  # type: ignore[arg-type]
    assert evaluate(first_legal, games=3, seed=np.uint64(2), rows=3, cols=3)["games"] == 3  # type: ignore[arg-type]

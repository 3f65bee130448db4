"""Exact solutions from Python: a `g2048 solve` file loaded in-process answers each action's optimal value, its
optimal moves play the games `g2048 eval --agent optimal` plays, and bad input is refused."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import numpy as np
import pytest

from gym2048 import G2048Error, Solution, evaluate, find_binary


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("solution") / "s2x3.bin")
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "3", "--out", path], check=True, capture_output=True)
    return path


def test_values_of_a_hand_made_board(solved: str) -> None:
    solution = Solution(solved)
    assert solution.info["afterstates"] == 59038 and abs(solution.expected_score - 480.26) < 0.01
    assert solution.rules["rows"] == 2 and solution.rules["cols"] == 3
    # 2 2 4 / 0 0 0: up is illegal; left merges the 2s (reward 4)
    board = np.array([[1, 1, 2], [0, 0, 0]], np.uint8)
    values = solution.action_values(board)[0]
    assert np.isnan(values[0]) and not np.isnan(values[3]) and values[3] >= 4
    assert solution.values(board)[0] == np.nanmax(values)
    assert solution.moves(board)[0] == int(np.nanargmax(values))
    stuck = np.array([[1, 2, 1], [2, 1, 2]], np.uint8)
    assert np.isnan(solution.action_values(stuck)).all()
    assert solution.moves(stuck).tolist() == [-1] and solution.values(stuck).tolist() == [0.0]
    solution.close()


def test_optimal_play_from_python_is_g2048_evals(solved: str) -> None:
    solution = Solution(solved)
    ours = evaluate(solution.policy(), games=300, seed=4, batch=128, **solution.rules)
    output = subprocess.run([find_binary(), "eval", "--solution", solved, "--games", "300", "--seed", "4",
                             "--threads", "1", "--json"], check=True, capture_output=True, text=True).stdout
    theirs: dict[str, Any] = json.loads(output)
    for report in (ours, theirs):
        report.pop("moves_per_second")
        report.pop("seconds")
    assert ours == theirs
    solution.close()


def test_bad_input_is_refused(solved: str, tmp_path: Any) -> None:
    damaged = tmp_path / "damaged.bin"
    data = bytearray(open(solved, "rb").read())
    data[len(data) // 2] ^= 1
    damaged.write_bytes(bytes(data))
    with pytest.raises(G2048Error, match="damaged: its checksum does not match"):
        Solution(str(damaged))
    with pytest.raises(G2048Error, match="not a solution file"):
        Solution(__file__)
    solution = Solution(solved)
    with pytest.raises(ValueError, match=r"boards must have shape \(n, 2, 3\) \(the solution's size\)"):
        solution.action_values(np.zeros((1, 3, 3), np.uint8))
    from gym2048.native import library
    assert solution._handle is not None
    assert library().g2048_player_destroy(solution._handle) != 0  # a solution's handle is not a player's
    solution.close()
    with pytest.raises(G2048Error, match="the solution is closed"):
        solution.moves(np.zeros((1, 2, 3), np.uint8))

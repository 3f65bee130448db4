"""Exact solutions from Python: a `g2048 solve` file loaded in-process answers each action's optimal value, its
optimal moves play the games `g2048 eval --agent optimal` plays, and bad input is refused."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
from typing import Any

import numpy as np
import pytest

from gym2048 import G2048Error, Solution, TrainedPlayer, evaluate, find_binary
from gym2048.native import library

from conftest import hang_is_a_failure


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("solution") / "s2x3.bin")
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "3", "--out", path], check=True, capture_output=True)
    return path


def test_values_of_a_hand_made_board(solved: str) -> None:
    solution = Solution(solved)
    # 59 038 afterstates, one of each mirrored pair or quadruple kept
    assert solution.info["afterstates"] == 14883 and abs(solution.expected_score - 480.26) < 0.01
    assert solution.objective == "score"
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
    lone = np.array([[1, 0, 0], [0, 0, 0]], np.uint8)  # one tile: every game's boards hold two or more
    assert np.isnan(solution.action_values(lone)).all()
    assert np.isnan(solution.values(lone)).all() and solution.moves(lone).tolist() == [-1]
    solution.close()


def test_g2048_query_answers_as_python_does(solved: str, tmp_path: Any) -> None:
    """The command line's `query` and Python's `Solution` give the same values, action values and moves, to the
    bit, on boards games reach and on random boards (most of which no game reaches)."""
    solution = Solution(solved)
    rng = np.random.default_rng(3)
    boards = rng.integers(0, 5, size=(300, 2, 3), dtype=np.uint8)
    boards[:3] = [[[1, 1, 2], [0, 0, 0]], [[1, 2, 1], [2, 1, 2]], [[1, 0, 0], [0, 0, 0]]]
    lines = "".join(json.dumps([[0 if e == 0 else 1 << int(e) for e in row] for row in board]) + "\n" for board in boards)
    (tmp_path / "boards.jsonl").write_text(lines)
    output = subprocess.run([find_binary(), "query", "--solution", solved, "--boards", str(tmp_path / "boards.jsonl"),
                             "--json"], check=True, capture_output=True, text=True).stdout
    answers = [json.loads(line) for line in output.splitlines()]
    values, q, moves = solution.values(boards), solution.action_values(boards), solution.moves(boards)
    assert len(answers) == len(boards)
    reached = 0
    for i, answer in enumerate(answers):
        assert answer["reachable"] == (not np.isnan(values[i]))
        assert answer["value"] == (None if np.isnan(values[i]) else values[i])
        assert answer["action_values"] == [None if np.isnan(v) else v for v in q[i]]
        assert answer["optimal_action"] == (None if moves[i] < 0 else int(moves[i]))
        reached += answer["reachable"]
    assert 3 <= reached < len(boards)  # both kinds are among them
    # A board no game reaches has no action value either, hence no move, whatever its afterstates are.
    assert np.isnan(q[np.isnan(values)]).all() and (moves[np.isnan(values)] == -1).all()
    # The optimal move is the first of the largest action values, -1 where none has a value.
    valued = ~np.isnan(q).all(axis=1)
    assert (moves[~valued] == -1).all()
    assert (moves[valued] == np.nanargmax(q[valued], axis=1)).all()
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


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("weights") / "w2x3.bin")
    # A table learned from games: a swept one would make the player optimal, which tells the doors apart less.
    subprocess.run([find_binary(), "train", "--rows", "2", "--cols", "3", "--games", "3000", "--table-learning", "games",
                    "--out", path], check=True, capture_output=True)
    return path


def exact_cli(solved: str, *arguments: str, player: str = "") -> dict[str, Any]:
    """`g2048 eval --exact --json`'s report, its player named `player` if given."""
    output = subprocess.run([find_binary(), "eval", "--exact", "--solution", solved, "--json", *arguments], check=True,
                            capture_output=True, text=True).stdout
    report: dict[str, Any] = json.loads(output)
    if player:
        report["player"] = player
    return report


def test_exact_evaluation_from_python_is_g2048_evals(solved: str, trained: str) -> None:
    solution = Solution(solved)
    optimal = solution.evaluate_exact(solution.policy())
    assert optimal == exact_cli(solved, "--agent", "optimal")
    assert abs(optimal["fraction_of_optimal"] - 1) < 1e-12 and optimal["suboptimal_states"] == 0
    # A trained network, greedy and searching: the same report from Python as from the command line.
    player = TrainedPlayer(trained)
    for depth in (0, 1):
        ours = solution.evaluate_exact(player.policy(depth), name="ntuple")
        assert ours == exact_cli(solved, "--weights", trained, "--depth", str(depth), player="ntuple"), depth
        assert 0.3 < ours["fraction_of_optimal"] < 1 and ours["reachable_states"] > 100
    # Batches of any size, threads: the same numbers.
    small_batches = solution.evaluate_exact(player.policy(0), name="ntuple", batch=7, threads=2)
    assert small_batches == exact_cli(solved, "--weights", trained, player="ntuple")
    # A symmetric evaluation asks fewer boards, and optimal play stays optimal.
    reduced = solution.evaluate_exact(solution.policy(), symmetric=True)
    assert reduced["reachable_states"] < optimal["reachable_states"]
    assert abs(reduced["expected_score"] - solution.expected_score) < 1e-9 * solution.expected_score
    player.close()
    solution.close()


def test_a_python_policy_is_asked_only_legal_boards(solved: str) -> None:
    solution = Solution(solved)
    seen: list[int] = []

    def first_legal(boards: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert boards.dtype == np.uint8 and boards.shape[1:] == (2, 3) and masks.shape == (len(boards), 4)
        assert masks.any(axis=1).all()  # every board asked has a move
        seen.append(len(boards))
        moves: np.ndarray = masks.argmax(axis=1)
        return moves

    report = solution.evaluate_exact(first_legal)
    assert report["player"] == "first_legal" and sum(seen) == report["reachable_states"]
    assert 0 < report["expected_score"] < solution.expected_score and 0 < report["suboptimal_share"] < 1
    solution.close()


def test_exact_evaluation_reports_its_progress(solved: str, capsys: pytest.CaptureFixture[str]) -> None:
    solution = Solution(solved)
    heard: list[dict[str, int]] = []
    batches: list[int] = []

    def first_legal(boards: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batches.append(len(boards))
        moves: np.ndarray = masks.argmax(axis=1)
        return moves

    report = solution.evaluate_exact(first_legal, progress=heard.append, batch=1 << 20)
    # Once after each age of boards answered, each further on than the last, within the solution's totals.
    assert len(heard) == len(batches) > 10
    total_work = solution.info["afterstates"]
    assert {(p["total_layers"], p["total_work"]) for p in heard} == {(heard[0]["total_layers"], total_work)}
    for before, after in zip(heard, heard[1:]):
        assert before["layers"] < after["layers"] and before["work"] <= after["work"] and before["reached"] <= after["reached"]
    assert 0 < heard[0]["work"] and heard[-1]["work"] <= total_work and heard[-1]["layers"] <= heard[-1]["total_layers"]
    assert heard[-1]["work"] > total_work / 2 and heard[-1]["reached"] > heard[0]["reached"]
    # The same report with or without it; True prints it on stderr.
    assert solution.evaluate_exact(first_legal, progress=True) == report
    err = capsys.readouterr().err
    assert "% of the solution's afterstates, layer " in err and err.endswith("\n")
    not_a_function: Any = "yes"
    with pytest.raises(TypeError, match="progress must be a bool or a function"):
        solution.evaluate_exact(first_legal, progress=not_a_function)
    solution.close()
    # From C: a handle that is no evaluation, and a NULL out-pointer, are refused with a message.
    lib, value = library(), ctypes.c_int64()
    assert lib.g2048_exact_progress(1 << 40, *[ctypes.byref(value)] * 5) != 0 and lib.g2048_last_error()
    handle, again = ctypes.c_int64(), Solution(solved)
    assert lib.g2048_exact_begin(again._live(), 0, 1, ctypes.byref(handle)) == 0
    assert lib.g2048_exact_progress(handle.value, *[ctypes.byref(value)] * 4, None) != 0
    assert b"must not be NULL" in lib.g2048_last_error()
    assert lib.g2048_exact_progress(handle.value, *[ctypes.byref(value)] * 5) == 0 and value.value == 0
    assert lib.g2048_exact_destroy(handle.value) == 0
    again.close()


def test_exact_evaluation_refuses_bad_moves(solved: str) -> None:
    solution = Solution(solved)
    with pytest.raises(G2048Error, match=r"the policy gave \[.*\] for board \d+ of the batch \(exponents .*\), where it is not legal"):
        solution.evaluate_exact(lambda boards, masks: (~masks).argmax(axis=1))
    with pytest.raises(ValueError, match=r"the policy returned 1 actions for \d+ boards"):
        solution.evaluate_exact(lambda boards, masks: [0])
    with pytest.raises(TypeError, match="the policy's actions must be integers 0..3, got dtype float64"):
        solution.evaluate_exact(lambda boards, masks: masks.argmax(axis=1) * 1.0)
    with pytest.raises(ValueError, match=r"the policy's actions must be 0..3, got 0..300"):
        solution.evaluate_exact(lambda boards, masks: np.where(masks.argmax(axis=1) == 3, 300, masks.argmax(axis=1)))
    with pytest.raises(ValueError, match="batch must be a positive integer"):
        solution.evaluate_exact(solution.policy(), batch=0)
    # An exception of the policy's own goes through, and the evaluation is released.
    with pytest.raises(KeyError):
        missing: dict[str, np.ndarray] = {}
        solution.evaluate_exact(lambda boards, masks: missing["x"])
    solution.close()
    with pytest.raises(G2048Error, match="the solution is closed"):
        solution.evaluate_exact(solution.policy())


def test_bad_input_is_refused(solved: str, tmp_path: Any) -> None:
    damaged = tmp_path / "damaged.bin"
    data = bytearray(open(solved, "rb").read())
    data[len(data) // 2] ^= 1
    damaged.write_bytes(bytes(data))
    with pytest.raises(G2048Error, match="damaged: its checksum does not match"):
        Solution(str(damaged))
    with pytest.raises(G2048Error, match="not a solution file"):
        Solution(__file__)
    # A header claiming 2^31 afterstates of layer 1, with the length to match but no disk blocks (a sparse file):
    # refused from its header, where the load stopped the process trying to allocate 16 GiB.
    header_size = 8 + 4 + 4 + 4 + 8 + 4
    layers = data[header_size - 4]
    forged = bytearray(data[:header_size + 8 * layers])
    forged[header_size:] = bytes(8 * layers)
    forged[header_size + 8 + 3] = 0x80
    sparse = tmp_path / "sparse.bin"
    sparse.write_bytes(bytes(forged))
    os.truncate(sparse, len(forged) + (16 << 31) + 8)
    with pytest.raises(G2048Error, match=r"holds 2147483648 afterstates by its header, 32 GiB to load; "):
        Solution(str(sparse))
    solution = Solution(solved)
    with pytest.raises(ValueError, match=r"boards must have shape \(n, 2, 3\) \(the solution's size\)"):
        solution.action_values(np.zeros((1, 3, 3), np.uint8))
    from gym2048.native import library
    assert solution._handle is not None
    assert library().g2048_player_destroy(solution._handle) != 0  # a solution's handle is not a player's
    board = np.zeros((1, 2, 3), np.uint8)
    for call, output in (("values", "values"), ("action_values", "values"), ("moves", "moves")):
        assert getattr(library(), f"g2048_solution_{call}")(solution._handle, board.ctypes.data, 1, None) != 0
        assert library().g2048_last_error().decode() == f"invalid params: {output} must not be NULL"
    solution.close()
    with pytest.raises(G2048Error, match="the solution is closed"):
        solution.moves(np.zeros((1, 2, 3), np.uint8))


def test_a_solution_without_a_move_on_a_playable_board_is_an_error(solved: str) -> None:
    """With one starting tile the games reach boards the solution (made with two) does not hold: its policy has
    no move there, which is an error naming the board, as `g2048 eval` makes it; never a made-up move 0."""
    solution = Solution(solved)
    rules = {**solution.rules, "initial_tiles": 1}
    with hang_is_a_failure(20), pytest.raises(ValueError, match=r"the solution has no move for board \d+ .*which has "
                                                                 "legal moves"):
        evaluate(solution.policy(), games=20, seed=1, **rules)
    solution.close()

"""Every object that owns an engine handle keeps two rules: a forked child is refused at once, before any lock a
parent's thread may have held at the fork; and a copy or a pickle is either a real copy or a TypeError that says
what to do, never a second owner of the same handle."""

from __future__ import annotations

import copy
import os
import pickle
import signal
import subprocess
import threading
import time
from typing import Any, Callable

import numpy as np
import pytest

from gym2048 import G2048, G2048Error, Gym2048Env, Gym2048VectorEnv, MemorizeEnv, MemorizeVectorEnv, Solution
from gym2048 import TrainedPlayer, find_binary
from gym2048.native import CallSession

from conftest import fork_during_calls


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A small trained network and a small solution."""
    folder = tmp_path_factory.mktemp("handles")
    weights, solution = str(folder / "w.bin"), str(folder / "s.bin")
    subprocess.run([find_binary(), "train", "--rows", "2", "--cols", "3", "--games", "20", "--seed", "1",
                    "--threads", "1", "--table-learning", "games", "--out", weights], check=True, capture_output=True)
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "3", "--out", solution], check=True,
                   capture_output=True)
    return {"weights": weights, "solution": solution}


def owners(files: dict[str, str]) -> list[tuple[Any, str]]:
    """One of each object that owns a handle, with what its TypeError must tell to do."""
    return [(TrainedPlayer(files["weights"]), "TrainedPlayer(path)"), (Solution(files["solution"]), "Solution(path)"),
            (MemorizeEnv(rows=2, cols=2), "MemorizeEnv"), (MemorizeEnv(rows=2, cols=2, backend="server"), "MemorizeEnv"),
            (MemorizeVectorEnv(3, rows=2, cols=2), "MemorizeVectorEnv"), (G2048(rows=2, cols=2), "G2048"),
            (CallSession({"rows": 2, "cols": 2}), "CallSession")]


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_copy_of_a_handle_owner_is_a_type_error_saying_what_to_do(files: dict[str, str], how: str) -> None:
    copiers: dict[str, Callable[[Any], Any]] = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": pickle.dumps}
    copier = copiers[how]
    for owner, advice in owners(files):
        with pytest.raises(TypeError, match=f"owns an engine handle.*{advice.replace('(', '.').replace(')', '.')}"):
            copier(owner)
        # The original still owns a live handle.
        if isinstance(owner, (TrainedPlayer, Solution)):
            owner.moves(np.zeros((1, owner.rows, owner.cols), np.uint8))
        elif isinstance(owner, (MemorizeEnv, MemorizeVectorEnv)):
            owner.reset(seed=1)
        else:
            owner.call("spec")
        owner.close()


def test_copies_of_2048_environments_are_real_copies() -> None:
    for env in (Gym2048Env(rows=3, cols=3), Gym2048VectorEnv(4, rows=3, cols=3)):
        env.reset(seed=3)
        for twin in (copy.copy(env), copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
            assert twin.get_state() == env.get_state()
            twin.close()
        env.get_state()  # closing the copies left the original's engine alone
        env.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_is_refused_before_the_lock_of_a_player_or_a_solution(files: dict[str, str]) -> None:
    player = TrainedPlayer(files["weights"])
    boards = np.random.default_rng(1).integers(0, 4, (4096, 2, 3)).astype(np.uint8)
    fork_during_calls(lambda: player.moves(boards, 1), lambda: player.values(boards[:1]), "after a fork, load it again")
    solution = Solution(files["solution"])
    small = np.random.default_rng(2).integers(0, 4, (20000, 2, 3)).astype(np.uint8)
    fork_during_calls(lambda: solution.values(small), lambda: solution.moves(small[:1]), "after a fork, load it again")
    player.close()
    solution.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_is_refused_before_the_lock_of_a_client() -> None:
    client = G2048(num_envs=256, rows=4, cols=4)
    client.reset(seed=1)
    fork_during_calls(lambda: client.call("render"), lambda: client.call("spec"),
                      "after a fork, make a new environment in the child")
    client.close()

"""The in-process backend against the server backend: the same seeds, options and actions give identical
observations, rewards, flags and infos (arrays equal in dtype, shape and value), for every autoreset mode and
three board sizes; and actions are checked the same way by both."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import gym2048  # noqa: F401  (registers Gym2048-v0)


def same(x: Any, y: Any) -> bool:
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, (tuple, list)):
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape):
            return False
        if x.dtype == object or y.dtype == object:
            return x.dtype == y.dtype and all(same(p, q) for p, q in zip(x.ravel(), y.ravel()))
        return bool(x.dtype == y.dtype and (x == y).all())
    return type(x) is type(y) and x == y


def run_vector(backend: str, steps: int, **options: Any) -> list[Any]:
    envs = gymnasium.make_vec("Gym2048-v0", vectorization_mode="vector_entry_point", backend=backend, **options)
    out: list[Any] = [envs.reset(seed=11)]
    rng = np.random.default_rng(3)
    for _ in range(steps):
        out.append(envs.step(rng.integers(0, 4, size=envs.num_envs)))
        if options.get("autoreset_mode") == "disabled" and (out[-1][2] | out[-1][3]).any():
            out.append(envs.reset())
    envs.close()
    return out


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("size", [(4, 4), (3, 3), (2, 5)])
def test_vector_backends_give_identical_trajectories(mode: str, size: tuple[int, int]) -> None:
    options = {"num_envs": 6, "rows": size[0], "cols": size[1], "autoreset_mode": mode, "max_steps": 60,
               "info": ["action_mask", "score", "max_tile", "steps", "afterstate", "spawn", "invalid", "won"]}
    native, server = run_vector("inprocess", 150, **options), run_vector("server", 150, **options)
    assert len(native) == len(server)
    for index, (a, b) in enumerate(zip(native, server)):
        assert same(a, b), f"result {index} differs:\n{a}\n{b}"
    ends = sum(int((r[2] | r[3]).sum()) for r in native if len(r) == 5)
    assert ends >= 3


@pytest.mark.parametrize("observation", ["exponents", "values", "onehot"])
def test_vector_encodings_match(observation: str) -> None:
    native = run_vector("inprocess", 40, num_envs=4, observation=observation)
    server = run_vector("server", 40, num_envs=4, observation=observation)
    assert same(native, server)


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_actions_as_python_users_pass_them(backend: str) -> None:
    env = gymnasium.make("Gym2048-v0", backend=backend)
    env.reset(seed=1)
    bad: object  # an action of one environment here, the actions of a vector below
    for action in (2, np.int64(1), np.array(3), np.array([0]), np.uint8(2)):
        env.step(action)
    for bad, error in (("left", TypeError), (1.0, TypeError), (np.float32(2.0), TypeError), (1 + 0j, TypeError),
                       (np.array([1, 2]), ValueError), (np.array([1.0]), TypeError), (7, ValueError),
                       (-1, ValueError), (True, TypeError), (float("nan"), TypeError), (float("inf"), TypeError)):
        with pytest.raises(error, match="Discrete\\(4\\)"):
            env.step(bad)
    env.close()
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=4, vectorization_mode="vector_entry_point", backend=backend,
                              autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    envs.reset(seed=2)
    # Lists, any integer width and byte order, and strided views are all read as the values they hold.
    for good in ([0, 1, 2, 3], np.array([3, 2, 1, 0], np.int8), np.array([0, 1, 2, 3], ">i4"),
                 np.arange(8, dtype=np.int64)[::2] % 4, np.array([1, 1, 0, 0], np.uint64)):
        envs.step(good)
    # Negative and wrapping values (256 is 0 as a byte) are refused, not cast.
    for bad, error in ((np.zeros((2, 2), int), ValueError), (np.zeros((4, 1), int), ValueError),
                       (np.zeros(4), TypeError), (np.array([0, 1, 2, 9]), ValueError), (["up"] * 4, TypeError),
                       (np.array([0, 1, 2, -1]), ValueError), (np.array([0, 1, 2, 256]), ValueError),
                       (np.array([0, -1, 2, 3], np.int8), ValueError), (np.array([0, 1, 2, 2**63], np.uint64), ValueError),
                       (np.array([0, 1, 2, -(2**63)]), ValueError), (np.array([0, 1, 2, np.nan]), TypeError),
                       ([0, 1, 2, float("inf")], TypeError)):
        with pytest.raises(error, match="MultiDiscrete"):
            envs.step(bad)
    envs.close()


def test_an_unknown_option_is_a_type_error_and_moves_points_to_the_server() -> None:
    with pytest.raises(TypeError, match="unknown option"):
        gymnasium.make("Gym2048-v0", colour=3)
    with pytest.raises(ValueError, match="rows must be an integer from 2 to 8, got 9"):
        gymnasium.make("Gym2048-v0", rows=9)
    with pytest.raises(ValueError, match="backend=\"server\""):
        gymnasium.make_vec("Gym2048-v0", num_envs=2, vectorization_mode="vector_entry_point", info=["moves"])


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_the_mask_of_an_ended_board_is_its_legal_moves(backend: str) -> None:
    # The docs once said a finished vector environment has an all-zero mask; one truncated at max_steps or won at
    # the win tile still has moves, and its mask shows them, as the rest of the time.
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=2, vectorization_mode="vector_entry_point", backend=backend,
                              max_steps=3, info=["action_mask"])
    _, infos = envs.reset(seed=5)
    for _ in range(3):
        actions = np.argmax(infos["action_mask"], axis=1)
        _, _, terminations, truncations, infos = envs.step(actions)
    assert truncations.all() and not terminations.any()
    assert infos["action_mask"].any(axis=1).all()
    envs.close()
    # A board with no move left: an all-zero mask.
    dead = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=2, vectorization_mode="vector_entry_point", backend=backend,
                              info=["action_mask"])
    _, infos = envs.reset(seed=1, options={"board": dead})
    assert not infos["action_mask"].any()
    envs.close()


def test_the_server_backend_takes_every_request_the_in_process_one_takes(tmp_path: Any) -> None:
    """Requests over a mebibyte (65 536 seeds; the states of 8 192 boards through set_state, deepcopy and pickle)
    are served as in-process; one over the server's line limit (a serve started with a small limit) is an error
    that says so, and the environment goes on, in step."""
    import copy
    import pickle
    import stat
    from gym2048 import Gym2048VectorEnv, find_binary
    from gym2048.client import splitmix64
    seeds = splitmix64(5, 65536)
    results = []
    for backend in ("inprocess", "server"):
        envs = Gym2048VectorEnv(65536, rows=2, cols=2, backend=backend, observation="exponents")
        results.append(envs.reset(seed=seeds)[0])
        envs.close()
    assert same(results[0], results[1])
    states = []
    for backend in ("inprocess", "server"):
        envs = Gym2048VectorEnv(8192, backend=backend)
        envs.reset(seed=3)
        envs.step(np.arange(8192) % 4)
        state = envs.get_state()
        for twin in (copy.deepcopy(envs), pickle.loads(pickle.dumps(envs))):
            assert twin.get_state() == state
            twin.close()
        envs.set_state(state)
        states.append(envs.get_state())
        envs.close()
    assert states[0] == states[1]
    wrapper = tmp_path / "g2048"
    wrapper.write_text(f"#!/bin/sh\nexec {find_binary()} \"$@\" --max-line-bytes 4096\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    envs = Gym2048VectorEnv(1000, backend="server", binary=str(wrapper))
    with pytest.raises(ValueError, match=r"line longer than 4096 bytes.*this request is \d+ bytes"):
        envs.reset(seed=splitmix64(9, 1000))
    observations, _ = envs.reset(seed=7)  # the environment is open and in step
    assert same(observations, Gym2048VectorEnv(1000).reset(seed=7)[0])
    envs.close()

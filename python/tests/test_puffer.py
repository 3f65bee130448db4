"""The PufferLib-native binding under PufferLib's own vectorization (Serial and Multiprocessing): the same
episodes as the Gymnasium vector environment, written into PufferLib's buffers."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

_missing = [name for name in ("pufferlib", "torch") if importlib.util.find_spec(name) is None]
if _missing:
    pytest.skip(f"PufferLib binding tests need {' and '.join(_missing)} (pufferlib imports torch): the opt-in RL "
                "tests install both, `bash Examples/python/rl-examples.sh`", allow_module_level=True)

import pufferlib.vector  # noqa: E402

from gym2048 import Gym2048VectorEnv  # noqa: E402
from gym2048.puffer import Gym2048Puffer  # noqa: E402


def run(backend: type, steps: int, **kwargs: object) -> list[tuple[bytes, ...]]:
    envs = pufferlib.vector.make(Gym2048Puffer, env_kwargs={"num_envs": 32, "log_interval": 8}, backend=backend,
                                 num_envs=2, seed=5, **kwargs)
    out: list[tuple[bytes, ...]] = []
    try:
        observations, _ = envs.reset(seed=5)
        out.append((observations.tobytes(),))
        rng = np.random.default_rng(1)
        for _ in range(steps):
            step = envs.step(rng.integers(0, 4, envs.num_agents).astype(np.int32))
            out.append(tuple(np.asarray(x).tobytes() for x in step[:4]))
    finally:
        envs.close()
    return out


def test_serial_and_multiprocessing_step_the_same_episodes() -> None:
    serial = run(pufferlib.vector.Serial, 150)
    assert serial == run(pufferlib.vector.Multiprocessing, 150, num_workers=2)


def test_the_binding_plays_the_vector_environments_episodes() -> None:
    """One binding of 16 boards against Gym2048VectorEnv(16, same_step): the same observations, rewards and flags."""
    puffer = Gym2048Puffer(num_envs=16, log_interval=4)
    vector = Gym2048VectorEnv(16, autoreset_mode="same_step", observation="exponents")
    observations, _ = puffer.reset(seed=11)
    expected, _ = vector.reset(seed=11)
    assert observations.tobytes() == expected.tobytes()
    rng = np.random.default_rng(2)
    ended = 0
    logs = []
    for _ in range(400):
        actions = rng.integers(0, 4, 16)
        observations, rewards, terminals, truncations, infos = puffer.step(actions.astype(np.int32))
        expected_obs, expected_rewards, terminated, truncated, _ = vector.step(actions)
        assert observations.tobytes() == expected_obs.tobytes()
        assert rewards.dtype == np.float32 and (rewards == expected_rewards).all()
        assert (terminals == terminated).all() and (truncations == truncated).all()
        ended += int(terminals.sum())
        logs += infos
    assert ended > 0 and logs and all(log["n"] > 0 and log["score"] > 0 for log in logs)
    assert sum(log["n"] for log in logs) <= ended
    puffer.close()
    vector.close()


def test_one_board_resets_itself_and_keeps_the_end_flag() -> None:
    env = Gym2048Puffer(num_envs=1, rows=2, cols=2)
    env.reset(seed=1)
    ends = 0
    for step in range(300):
        observations, _, terminals, _, _ = env.step(np.array([step % 4], np.int32))
        ends += int(terminals[0])
        assert observations.shape == (1, 2, 2) and observations.any()
    assert ends > 0
    env.close()


def test_bad_options_and_buffers_are_refused_with_the_engines_message() -> None:
    from gym2048 import G2048OptionError, G2048ParamsError
    with pytest.raises(G2048ParamsError, match="rows must be an integer from 2 to 8, got 9"):
        Gym2048Puffer(num_envs=4, rows=9)
    with pytest.raises(G2048OptionError, match="bord"):
        Gym2048Puffer(num_envs=4, bord=1)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        Gym2048Puffer(num_envs=0)


def test_a_network_observation_is_float32_in_pufferlibs_buffer() -> None:
    env = Gym2048Puffer(num_envs=8, observation="onehot_flat")
    observations, _ = env.reset(seed=3)
    assert observations.dtype == np.float32 and observations.shape == (8, env.single_observation_space.shape[0])
    assert (observations.sum(axis=1) == 16).all()  # one channel per cell
    env.close()

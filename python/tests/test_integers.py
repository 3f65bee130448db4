"""The number rule at every Python entry: an integer is an integer, exactly. Seeds and actions given as floats,
bools, text or NaN are refused with a TypeError or ValueError naming what was given, never rounded, cast or
broadcast: at the vector environments of both games, and at the adapters (SB3's `seed`, PufferLib's binding),
which run here on the real packages when they are installed and on minimal stand-ins of their base classes
otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gym2048 import Gym2048Env, Gym2048VectorEnv, MemorizeEnv, MemorizeVectorEnv

BAD_SEEDS = ([1.5, 2, 3], ["2", 2, 3], [True, 2, 3], [float("nan"), 2, 3], [2.0, 2, 3])


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_vector_seeds_are_integers_exactly(backend: str) -> None:
    for envs in (Gym2048VectorEnv(3, rows=3, cols=3, backend=backend),
                 MemorizeVectorEnv(3, rows=2, cols=2, backend=backend)):
        for seeds in BAD_SEEDS:
            with pytest.raises(TypeError, match=r"seed\[0\] must be an integer, got"):
                envs.reset(seed=seeds)  # type: ignore[arg-type]
        for seed in (1.5, "2", True, np.float64(3)):
            with pytest.raises(TypeError) as caught:
                envs.reset(seed=seed)  # type: ignore[arg-type]
            assert str(caught.value).count("None") == 2 and "or None, or None" not in str(caught.value), caught.value
        # A list, a tuple and an integer array of seeds are the same seeds, in both games.
        first, _ = envs.reset(seed=[4, 5, 6])
        for same in ((4, 5, 6), np.array([4, 5, 6], np.uint64)):
            again, _ = envs.reset(seed=same)  # type: ignore[arg-type]
            assert again.tolist() == first.tolist()
        envs.close()


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_single_environment_seeds_are_integers_exactly(backend: str) -> None:
    """A single environment's seed follows the vectors' rule: Gymnasium's own check raised its `Error` (neither a
    TypeError nor a ValueError) on a float or a string, and took True as 1."""
    for env in (Gym2048Env(rows=3, cols=3, backend=backend), MemorizeEnv(rows=2, cols=2, backend=backend)):
        for seed in (1.5, "2", True, np.float64(3), np.bool_(True)):
            with pytest.raises(TypeError, match=r"seed must be an integer, got"):
                env.reset(seed=seed)  # type: ignore[arg-type]
        for seed in (-1, 1 << 64):
            with pytest.raises(ValueError, match=r"seed must be an unsigned 64-bit integer"):
                env.reset(seed=seed)
        first, _ = env.reset(seed=7)
        again, _ = env.reset(seed=np.uint64(7))  # type: ignore[arg-type]
        assert again.tolist() == first.tolist()
        env.close()


def test_the_puffer_binding_takes_integers_exactly(adapters: tuple[Any, Any]) -> None:
    puffer_class, _ = adapters
    for seed in (1.5, "2", True):
        with pytest.raises(TypeError, match="seed must be an integer"):
            puffer_class(num_envs=2, seed=seed)
    intervals: list[tuple[Any, type[Exception]]] = [(1.5, TypeError), (0, ValueError), (True, TypeError)]
    for interval, refusal in intervals:
        with pytest.raises(refusal, match="log_interval must be"):
            puffer_class(num_envs=2, log_interval=interval)
    env = puffer_class(num_envs=2)
    for seed in (1.5, "2", True):
        with pytest.raises(TypeError, match="seed must be an integer"):
            env.reset(seed=seed)
    env.reset(seed=1)
    before = env.observations.copy()
    bad: list[tuple[Any, type[Exception], str]] = [
        (np.array([256, 0], np.int32), ValueError, r"actions\[0\] must be 0..3.*got 256"),
        (np.array([-255, 0], np.int32), ValueError, r"actions\[0\] must be 0..3.*got -255"),
        (np.array([1.7, 0.0]), TypeError, "actions must be integers 0..3.*got dtype float64"),
        (np.array([np.nan, 0.0]), TypeError, "actions must be integers 0..3.*got dtype float64"),
        (np.array([1], np.int32), ValueError, r"actions must have shape \(2,\).*got shape \(1,\)"),
        (np.array([True, False]), TypeError, "got dtype bool")]
    for actions, error, message in bad:
        with pytest.raises(error, match=message):
            env.step(actions)
        assert (env.observations == before).all()  # nothing was stepped
    env.step(np.array([0, 3], np.int32))
    env.close()


def test_sb3_seed_takes_integers_exactly(adapters: tuple[Any, Any]) -> None:
    _, sb3_class = adapters
    envs = sb3_class(3, rows=3, cols=3)
    for seed in (1.5, "2", True):
        with pytest.raises(TypeError, match="seed must be an integer"):
            envs.seed(seed)
    envs.seed(np.int64(5))
    first = envs.reset()
    envs.seed(5)
    assert (envs.reset() == first).all()
    envs.close()


def test_memorize_vector_cards_are_exactly_their_shape() -> None:
    """Memorize's vector reshaped any array of num_envs cards: (3, 1) and (1, 3) were taken; now the rule of 2048's
    vector, one integer array of shape (num_envs,)."""
    envs = MemorizeVectorEnv(3, rows=2, cols=2)
    envs.reset(seed=1)
    for cards in (np.zeros((3, 1), np.int64), np.zeros((1, 3), np.int64)):
        with pytest.raises(ValueError, match=r"actions must have shape \(3,\)"):
            envs.step(cards)
    with pytest.raises(TypeError, match="got dtype float64"):
        envs.step(np.zeros(3))
    with pytest.raises(ValueError, match=r"actions\[1\] must be 0..3"):
        envs.step(np.array([0, 4, 0]))
    envs.step(np.array([0, 1, 2]))
    envs.close()

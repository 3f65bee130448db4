"""The number rule at every Python entry: an integer is an integer, exactly. Seeds and actions given as floats,
bools, text or NaN are refused with a TypeError or ValueError naming what was given, never rounded, cast or
broadcast: at the vector environments of both games, and at the adapters (SB3's `seed`, PufferLib's binding),
which run here on the real packages when they are installed and on minimal stand-ins of their base classes
otherwise."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any, Iterator, Optional

import numpy as np
import pytest

from gym2048 import Gym2048VectorEnv, MemorizeVectorEnv

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


# -- the adapters: the real packages when installed, else stand-ins of the base classes our adapters use ----------

class _PufferEnv:
    """What Gym2048Puffer uses of `pufferlib.PufferEnv`: buffers for `num_agents` of the single spaces."""

    def __init__(self, buf: Optional[dict[str, Any]] = None) -> None:
        n, space = self.num_agents, self.single_observation_space  # type: ignore[attr-defined]
        self.observations = np.zeros((n, *space.shape), space.dtype)
        self.rewards = np.zeros(n, np.float32)
        self.terminals = np.zeros(n, np.bool_)
        self.truncations = np.zeros(n, np.bool_)


class _VecEnv:
    """What Gym2048SB3VecEnv uses of SB3's `VecEnv`, its `seed` as SB3 words it."""

    def __init__(self, num_envs: int, observation_space: Any, action_space: Any) -> None:
        self.num_envs, self.observation_space, self.action_space = num_envs, observation_space, action_space
        self.render_mode = None
        self._reset_seeds()
        self._reset_options()

    def _reset_seeds(self) -> None:
        self._seeds: list[Optional[int]] = [None] * self.num_envs

    def _reset_options(self) -> None:
        self._options: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]

    def seed(self, seed: Optional[int] = None) -> list[Optional[int]]:
        if seed is None:
            seed = int(np.random.randint(0, 2**32 - 1, dtype=np.uint32))
        self._seeds = [seed + index for index in range(self.num_envs)]
        return self._seeds

    def step(self, actions: Any) -> Any:
        self.step_async(actions)  # type: ignore[attr-defined]
        return self.step_wait()  # type: ignore[attr-defined]


@pytest.fixture
def adapters(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """(Gym2048Puffer, Gym2048SB3VecEnv), imported over the installed packages or the stand-ins."""
    if importlib.util.find_spec("pufferlib") is None:
        monkeypatch.setitem(sys.modules, "pufferlib", types.SimpleNamespace(PufferEnv=_PufferEnv))
    if importlib.util.find_spec("stable_baselines3") is None:
        for name in ("stable_baselines3", "stable_baselines3.common", "stable_baselines3.common.vec_env"):
            monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
        base = types.ModuleType("stable_baselines3.common.vec_env.base_vec_env")
        base.VecEnv = _VecEnv  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, base.__name__, base)
    for module in ("gym2048.puffer", "gym2048.sb3"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    puffer, sb3 = importlib.import_module("gym2048.puffer"), importlib.import_module("gym2048.sb3")
    yield puffer.Gym2048Puffer, sb3.Gym2048SB3VecEnv
    for module in ("gym2048.puffer", "gym2048.sb3"):
        sys.modules.pop(module, None)


def test_the_puffer_binding_takes_integers_exactly(adapters: tuple[Any, Any]) -> None:
    puffer_class, _ = adapters
    for seed in (1.5, "2", True):
        with pytest.raises(TypeError, match="seed must be an integer"):
            puffer_class(num_envs=2, seed=seed)
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

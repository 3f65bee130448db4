"""The Stable-Baselines3 adapter against SB3 itself: its VecEnv contract (autoreset, terminal observations,
Monitor's episode statistics, seeding, env_method/get_attr/set_attr), its wrappers and checks, and MaskablePPO."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

_missing = [name for name in ("stable_baselines3", "sb3_contrib", "torch") if importlib.util.find_spec(name) is None]
if _missing:
    pytest.skip(f"Stable-Baselines3 tests need {', '.join(_missing)}: the opt-in RL tests install them, "
                "`bash Examples/python/rl-examples.sh`", allow_module_level=True)

import gymnasium  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecCheckNan, VecNormalize  # noqa: E402

import gym2048  # noqa: E402,F401
from gym2048.sb3 import Gym2048SB3VecEnv  # noqa: E402

BACKENDS = ("inprocess", "server")


@pytest.mark.parametrize("backend", BACKENDS)
def test_steps_match_dummy_vec_env_over_single_environments(backend: str) -> None:
    """The adapter's observations, rewards, dones, terminal observations and episode statistics are SB3's
    DummyVecEnv's over Gym2048-v0 with the same seeds."""
    n = 6
    ours = Gym2048SB3VecEnv(n, backend=backend, rows=3, cols=3)
    theirs = DummyVecEnv([lambda: gymnasium.make("Gym2048-v0", rows=3, cols=3, observation="onehot_flat")
                          for _ in range(n)])
    ours.seed(21)
    theirs.seed(21)
    assert (ours.reset() == theirs.reset()).all()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        actions = rng.integers(0, 4, n)
        o1, r1, d1, i1 = ours.step(actions)
        o2, r2, d2, i2 = theirs.step(actions)
        assert (o1 == o2).all() and (r1 == r2).all() and (d1 == d2).all() and r1.dtype == np.float32
        for index in np.flatnonzero(d1):
            episodes += 1
            assert (i1[index]["terminal_observation"] == i2[index]["terminal_observation"]).all()
            assert i1[index]["TimeLimit.truncated"] == i2[index].get("TimeLimit.truncated", False)
            assert i1[index]["score"] == i2[index]["score"]
            assert i1[index]["episode"]["r"] == i1[index]["score"]  # the return is the score under "noop"
            assert i1[index]["episode"]["l"] > 0
        assert (ours.action_masks() == np.stack(theirs.env_method("action_masks"))).all()
    assert episodes > 5
    ours.close()
    theirs.close()


def test_env_method_get_attr_set_attr_and_wrappers() -> None:
    envs = Gym2048SB3VecEnv(4)
    envs.seed(3)
    envs.reset()
    masks = envs.env_method("action_masks")
    assert len(masks) == 4 and (np.stack(masks) == envs.action_masks()).all()
    assert len(envs.env_method("action_masks", indices=[1, 3])) == 2
    assert envs.get_attr("render_mode") == [None] * 4
    assert callable(envs.get_attr("action_masks")[0])  # how sb3-contrib detects masking support
    assert (envs.get_attr("action_masks", indices=2)[0]() == envs.action_masks()[2]).all()
    states = envs.get_state()
    envs.step(np.zeros(4, dtype=np.int64))
    envs.set_attr("state", states[0], indices=[2])
    assert envs.get_state()[2] == states[0]
    assert envs.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    # SB3's own wrappers take it: NaN checks and normalisation
    wrapped = VecNormalize(VecCheckNan(envs, raise_exception=True), norm_obs=False)
    wrapped.reset()
    for _ in range(50):
        wrapped.step(np.random.default_rng(1).integers(0, 4, 4))
    wrapped.close()


def test_the_flat_float_observation_passes_check_env_without_warnings() -> None:
    """"onehot_flat" is what SB3's MlpPolicy takes as it is; the uint8 (channels, rows, cols) "onehot" is taken
    for an image (three warnings), as is any 3-D box (SB3's rule), so the adapter defaults to the flat form."""
    env = gymnasium.make("Gym2048-v0", observation="onehot_flat")
    assert env.observation_space.shape == (16 * 18,) and env.observation_space.dtype == np.float32
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    env.close()


def test_maskable_ppo_learns_through_the_adapter_and_evaluates() -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    torch.set_num_threads(1)
    envs = Gym2048SB3VecEnv(16, rows=3, cols=3)
    model = MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=256, n_epochs=1, seed=1, device="cpu")
    model.learn(2048)
    assert len(model.ep_info_buffer) > 0 and all(info["r"] > 0 for info in model.ep_info_buffer)
    mean, _ = evaluate_policy(model, envs, n_eval_episodes=8, use_masking=True, warn=False)
    assert mean > 0
    envs.close()

"""gym2048.Gym2048VectorEnv: make_vec with one server, seeding, determinism, autoreset modes, masks, encodings."""

from __future__ import annotations

import gc
from typing import Any, Optional, Union

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest

from gym2048 import G2048Error, G2048ParamsError, Gym2048Env, Gym2048VectorEnv
from gym2048.client import splitmix64
from conftest import server_children

SIZES = [1, 4]
#: What a reset (observations, infos) or a step (observations, rewards, terminations, truncations, infos) returns.
Result = tuple[Union[npt.NDArray[Any], dict[str, Any]], ...]


def legal_actions(masks: npt.NDArray[Any], rng: np.random.Generator) -> npt.NDArray[np.intp]:
    """A random legal action per environment, with the documented idiom for an all-zero mask."""
    masks = np.where(masks.any(1, keepdims=True), masks, 1)
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("mode", [None, "vector_entry_point"])
@pytest.mark.parametrize("num_envs", [1, 8])
def test_make_vec_starts_one_server_whatever_num_envs(mode: Optional[str], num_envs: int) -> None:
    gc.collect()
    before = server_children()
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs, vectorization_mode=mode, rows=3, cols=3,
                              backend="server")
    assert isinstance(envs, Gym2048VectorEnv) and envs.num_envs == num_envs
    assert len(server_children() - before) == 1
    obs, infos = envs.reset(seed=1)
    assert obs.shape == (num_envs, 3, 3) and infos["action_mask"].shape == (num_envs, 4)
    assert envs.observation_space.contains(obs)
    envs.close()
    envs.close()
    assert server_children() == before


def test_make_vec_default_encoding_is_base64_batch_with_columns() -> None:
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=4, backend="server")
    vector = envs.unwrapped
    assert isinstance(vector, Gym2048VectorEnv)
    config = vector.spec_info["config"]
    assert config["info_layout"] == "columns"
    assert config["observation"] == "base64_batch"
    assert config["info"] == ["action_mask", "score"]
    envs.close()


def test_base64_batch_decodes_to_the_same_as_exponents() -> None:
    results: dict[str, list[Result]] = {}
    for observation in ("exponents", "base64_batch"):
        envs = Gym2048VectorEnv(5, observation=observation, rows=3, cols=3,
                                info=["action_mask", "score", "max_tile", "steps", "invalid", "won", "afterstate"])
        rng = np.random.default_rng(2)
        out: list[Result] = [envs.reset(seed=8)]
        for _ in range(40):
            out.append(envs.step(legal_actions(out[-1][-1]["action_mask"], rng)))
        results[observation] = out
        envs.close()
    for a, b in zip(results["exponents"], results["base64_batch"]):
        for x, y in zip(a, b):
            if isinstance(x, dict):
                assert isinstance(y, dict) and x.keys() == y.keys()
                for key in x:
                    np.testing.assert_array_equal(np.asarray(x[key]), np.asarray(y[key]), err_msg=key)
            else:
                assert isinstance(y, np.ndarray)
                np.testing.assert_array_equal(x, y)
                assert x.dtype == y.dtype


@pytest.mark.parametrize("num_envs", SIZES)
def test_int_seed_gives_env_i_the_i_plus_1th_splitmix64_output(num_envs: int) -> None:
    envs = Gym2048VectorEnv(num_envs, observation="exponents")
    obs, _ = envs.reset(seed=77)
    single = Gym2048Env(observation="exponents")
    for index, seed in enumerate(splitmix64(77, num_envs)):
        np.testing.assert_array_equal(obs[index], single.reset(seed=seed)[0])
    single.close()
    envs.close()


@pytest.mark.parametrize("num_envs", SIZES)
def test_per_env_seeds_reproduce_single_env_resets(num_envs: int) -> None:
    seeds = [1000 + 17 * i for i in range(num_envs)]
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs)
    assert isinstance(envs, Gym2048VectorEnv)  # whose reset takes a seed per environment
    obs, _ = envs.reset(seed=seeds)
    single = Gym2048Env()
    for index, seed in enumerate(seeds):
        np.testing.assert_array_equal(obs[index], single.reset(seed=seed)[0])
    single.close()
    envs.close()


def test_a_none_seed_keeps_that_environments_stream() -> None:
    envs = Gym2048VectorEnv(3, observation="exponents")
    first, _ = envs.reset(seed=[5, 6, 7])
    again, _ = envs.reset(seed=[5, None, 7])
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[2], first[2])
    envs.close()


def test_a_seed_list_of_the_wrong_length_is_refused() -> None:
    envs = Gym2048VectorEnv(3)
    with pytest.raises(ValueError, match="seed is a list of 2 seeds, but there are 3 environments"):
        envs.reset(seed=[1, 2])
    envs.close()


@pytest.mark.parametrize("num_envs", SIZES)
def test_same_seed_same_observations_and_steps(num_envs: int) -> None:
    def run() -> list[npt.NDArray[Any]]:
        envs = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs, rows=2, cols=3)
        rng = np.random.default_rng(3)
        obs, infos = envs.reset(seed=123)
        out = [obs]
        for _ in range(50):
            obs, rewards, terminations, truncations, infos = envs.step(legal_actions(infos["action_mask"], rng))
            out += [obs, rewards, terminations, truncations, infos["score"]]
        envs.close()
        return out
    first, second = run(), run()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("num_envs", SIZES)
def test_next_step_autoreset(num_envs: int) -> None:
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs, rows=2, cols=2, info=["action_mask", "score", "steps"])
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=3)
    rng = np.random.default_rng(1)
    pending = np.zeros(num_envs, dtype=bool)
    finished = 0
    for _ in range(80):
        # An environment awaiting its reset has an all-zero mask; the idiom in legal_actions handles it.
        assert (infos["action_mask"][pending] == 0).all()
        obs, rewards, terminations, truncations, infos = envs.step(legal_actions(infos["action_mask"], rng))
        # The step after a terminal step resets: reward 0, flags false, a fresh two-tile board.
        assert (rewards[pending] == 0).all() and not terminations[pending].any()
        assert ((obs[pending] > 0).sum(axis=(1, 2)) == 2).all()
        assert (infos["steps"][pending] == 0).all()
        pending = terminations | truncations
        finished += pending.sum()
    assert finished > 0
    envs.close()


@pytest.mark.parametrize("num_envs", SIZES)
def test_same_step_autoreset_reports_final_obs(num_envs: int) -> None:
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs, rows=2, cols=2, autoreset_mode="same_step",
                              observation="exponents", info=["action_mask", "score", "steps"])
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=3)
    rng = np.random.default_rng(1)
    finished = 0
    scores = np.zeros(num_envs)
    for _ in range(80):
        obs, rewards, terminations, truncations, infos = envs.step(legal_actions(infos["action_mask"], rng))
        scores += rewards
        done = terminations | truncations
        assert infos["action_mask"].any(axis=1).all()  # never an all-zero mask: finished envs restarted at once
        if done.any():
            np.testing.assert_array_equal(infos["_final_obs"], done)
            np.testing.assert_array_equal(infos["_final_info"], done)
            for index in np.flatnonzero(done):
                final = infos["final_obs"][index]
                assert final.shape == (2, 2) and (final > 0).all()  # a full 2×2 board: no move left
                assert (obs[index] > 0).sum() == 2 and infos["steps"][index] == 0
                # The ended episode's own info: its score is the sum of its rewards, its mask is empty.
                assert infos["final_info"]["_score"][index]
                assert infos["final_info"]["score"][index] == scores[index] and scores[index] > 0
                assert not infos["final_info"]["action_mask"][index].any()
                scores[index] = 0
            finished += done.sum()
        else:
            assert "final_obs" not in infos or not infos["_final_obs"].any()
    assert finished > 0
    envs.close()


@pytest.mark.parametrize("num_envs", SIZES)
def test_disabled_autoreset_refuses_a_step_on_a_finished_env(num_envs: int) -> None:
    envs = Gym2048VectorEnv(num_envs, rows=2, cols=2, autoreset_mode="disabled")
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.DISABLED
    obs, infos = envs.reset(seed=3)
    rng = np.random.default_rng(1)
    with pytest.raises(G2048Error) as error:
        for _ in range(200):
            obs, _, terminations, truncations, infos = envs.step(legal_actions(infos["action_mask"], rng))
    assert error.value.code == -32002
    envs.reset(seed=4)  # reset makes it playable again
    envs.step(np.zeros(num_envs, dtype=np.int64))
    envs.close()


def test_max_episode_steps_truncates() -> None:
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=3, max_episode_steps=2)
    obs, infos = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    envs.step(legal_actions(infos["action_mask"], rng))
    _, _, _, truncations, _ = envs.step(legal_actions(infos["action_mask"], rng))
    assert truncations.all()
    envs.close()


@pytest.mark.parametrize("num_envs", SIZES)
def test_bad_actions_name_the_action_space(num_envs: int) -> None:
    envs = Gym2048VectorEnv(num_envs)
    envs.reset(seed=1)
    bad = [0] * (num_envs - 1) + [9]
    with pytest.raises(ValueError, match=rf"actions\[{num_envs - 1}\] must be 0..3 .*MultiDiscrete.*got 9"):
        envs.step(bad)
    with pytest.raises(ValueError, match=rf"actions must have shape \({num_envs},\) .*got shape \({num_envs + 1},\)"):
        envs.step([0] * (num_envs + 1))
    with pytest.raises(ValueError, match="got -1"):
        envs.step(np.array([-1] * num_envs))
    envs.close()


def test_unknown_option_and_bad_value_name_it() -> None:
    with pytest.raises(TypeError, match="unknown option 'colour'"):
        gymnasium.make_vec("Gym2048-v0", num_envs=2, colour="red")
    with pytest.raises(ValueError, match="autoreset_mode"):
        gymnasium.make_vec("Gym2048-v0", num_envs=2, autoreset_mode="sometimes")


def test_render_modes() -> None:
    envs = Gym2048VectorEnv(3, rows=2, cols=3, render_mode="rgb_array")
    envs.reset(seed=1)
    images = envs.render()
    assert len(images) == 3 and all(image.dtype == np.uint8 and image.shape[2] == 3 for image in images)
    envs.close()
    envs = Gym2048VectorEnv(3, render_mode="ansi")
    envs.reset(seed=1)
    assert envs.render().count("\n\n") == 2
    envs.close()


def test_a_dropped_vector_env_leaves_no_process() -> None:
    gc.collect()
    before = server_children()
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=16, backend="server")
    envs.reset(seed=1)
    assert len(server_children() - before) == 1
    del envs
    gc.collect()
    assert server_children() == before

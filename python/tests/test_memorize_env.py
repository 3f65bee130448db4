"""Memorize-v0 through Gymnasium: `check_env`, the spaces, masks and seeds, both backends playing the same games,
the vector's autoreset modes, and refusals with the engine's messages."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

import gym2048  # noqa: F401 - registers the environments
from gym2048.client import G2048Error
from gym2048.game_envs import GameEnv, GameVectorEnv
from gym2048.memorize import MemorizeEnv, MemorizeVectorEnv


def game(env: gymnasium.Env[Any, Any]) -> GameEnv:
    """The GameEnv under the wrappers gymnasium.make puts around it."""
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, GameEnv) and unwrapped.game == "memorize"
    return unwrapped


def play(env: Any, seed: int, steps: int = 150) -> list[Any]:
    """A seeded random game on a single env: everything it returned."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out: list[Any] = [obs.tolist(), info["action_mask"].tolist()]
    for _ in range(steps):
        card = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(card)
        out += [obs.tolist(), reward, terminated, truncated, {k: v.tolist() if hasattr(v, "tolist") else v for k, v in info.items()}]
        if terminated or truncated:
            obs, info = env.reset()
            out.append(obs.tolist())
    return out


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_check_env_passes(backend: str) -> None:
    env = gymnasium.make("Memorize-v0", rows=2, cols=3, backend=backend, render_mode="ansi")
    try:
        check_env(env.unwrapped, skip_render_check=False)
        assert isinstance(env.action_space, spaces.Discrete)
        assert env.observation_space.shape == (2, 3) and env.action_space.n == 6
        env.reset(seed=1)
        text = env.render()
        assert isinstance(text, str) and "0" in text
    finally:
        env.close()


@pytest.mark.parametrize("options", [{}, {"rows": 1, "cols": 8, "reveal_seen": True, "mismatch_penalty": 0.5, "max_steps": 20}])
def test_both_backends_play_the_same_games(options: dict[str, Any]) -> None:
    a = gymnasium.make("Memorize-v0", backend="inprocess", **options)
    b = gymnasium.make("Memorize-v0", backend="server", **options)
    try:
        assert game(a).spec_info == game(b).spec_info
        assert play(a, 3) == play(b, 3)
        assert play(a, 4) == play(a, 4), "a seed gives the same game"
    finally:
        a.close()
        b.close()


def test_an_illegal_card_follows_the_policy_every_game_has() -> None:
    """noop (the default) changes nothing and earns 0; terminate ends the game with -penalty; reject refuses."""
    cases: list[tuple[dict[str, Any], float, bool]] = [
        ({}, 0.0, False), ({"invalid_action": "terminate", "invalid_action_penalty": 3}, -3.0, True)]
    for options, reward, terminated in cases:
        env = gymnasium.make("Memorize-v0", rows=1, cols=4, **options)
        try:
            env.reset(seed=9)
            before = env.step(2)[0]
            obs, r, term, trunc, info = env.step(2)
            assert (r, term, trunc) == (reward, terminated, False) and obs.tolist() == before.tolist()
            assert int(info["steps"]) == 1, "the game's own count of cards turned"
        finally:
            env.close()


def test_the_mask_is_the_face_down_cards_and_an_illegal_card_is_refused() -> None:
    env = gymnasium.make("Memorize-v0", rows=1, cols=4, invalid_action="reject")
    try:
        obs, info = env.reset(seed=9)
        assert info["action_mask"].tolist() == [1, 1, 1, 1] and obs.tolist() == [[0, 0, 0, 0]]
        obs, _, _, _, info = env.step(2)
        assert info["action_mask"].tolist() == [1, 1, 0, 1] and obs[0, 2] >= 2
        assert game(env).action_masks().tolist() == [True, True, False, True]
        with pytest.raises(G2048Error, match="card 2 is face up"):
            env.step(2)
        with pytest.raises(ValueError, match=r"action must be 0..3 \(the action space is Discrete\(4\)\), got 4"):
            env.step(4)
        with pytest.raises(TypeError, match="action must be an integer 0..3"):
            env.step(1.0)
        # The checks 2048's actions have: a card as a one-element integer array, and the arrays that are not one.
        with pytest.raises(ValueError, match=r"action must be one integer 0..3 \(the action space is Discrete\(4\)\), got an array of shape \(2,\)"):
            env.step(np.array([1, 3]))
        with pytest.raises(TypeError, match="action must be an integer 0..3 .*got an array of dtype float64"):
            env.step(np.array([1.0]))
        with pytest.raises(TypeError, match="got bool True"):
            env.step(True)
        obs, _, _, _, info = env.step(np.array([3]))
        assert info["action_mask"][3] == 0
    finally:
        env.close()


@pytest.mark.parametrize("options, message", [
    ({"rows": 3, "cols": 3}, "rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
    ({"reveal_seen": "yes"}, "reveal_seen must be true or false"),
    ({"spawn_four_probability": 0.2}, "unknown option 'spawn_four_probability' for memorize"),
])
@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_bad_options_are_refused_alike(options: dict[str, Any], message: str, backend: str) -> None:
    with pytest.raises(G2048Error) as refused:
        gymnasium.make("Memorize-v0", backend=backend, **options)
    assert message in str(refused.value)


@pytest.mark.parametrize("num_envs", [1, 3])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_the_vector_plays_each_lane_as_a_single_env_would(num_envs: int, mode: str) -> None:
    envs = gymnasium.make_vec("Memorize-v0", num_envs=num_envs, rows=2, cols=2, autoreset_mode=mode)
    server = gymnasium.make_vec("Memorize-v0", num_envs=num_envs, rows=2, cols=2, autoreset_mode=mode, backend="server")
    try:
        assert isinstance(envs.single_action_space, spaces.Discrete)
        assert envs.single_action_space.n == 4 and envs.observation_space.shape == (num_envs, 2, 2)
        rng = np.random.default_rng(1)
        obs, infos = envs.reset(seed=5)
        obs_b, infos_b = server.reset(seed=5)
        assert np.array_equal(obs, obs_b)
        finished = 0
        for _ in range(60):
            masks = infos["action_mask"]
            cards = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, rewards, terms, truncs, infos = envs.step(cards)
            obs_b, rewards_b, terms_b, truncs_b, infos_b = server.step(cards)
            assert np.array_equal(obs, obs_b) and np.array_equal(rewards, rewards_b) and np.array_equal(terms, terms_b)
            finished += int(terms.sum())
            if mode == "same_step" and terms.any():
                assert infos["_final_obs"][terms].all() and (obs[terms] == 0).all(), "a finished lane starts again"
        assert finished > 0
    finally:
        envs.close()
        server.close()


def test_the_old_classes_are_the_generic_ones_for_memorize() -> None:
    env, envs = MemorizeEnv(rows=2, cols=2), MemorizeVectorEnv(2, rows=2, cols=2)
    try:
        assert isinstance(env, GameEnv) and isinstance(envs, GameVectorEnv)
        assert env.game == envs.game == "memorize"
        with pytest.raises(TypeError, match="game is fixed"):
            MemorizeEnv(game="2048")
    finally:
        env.close()
        envs.close()


def test_the_memory_example_shows_the_gap() -> None:
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, os.path.join(root, "Examples", "python", "memorize_memory.py"), "--games", "64",
                          "--rows", "2", "--cols", "3"], check=True, capture_output=True, text=True).stdout
    means = {line.split()[0]: float(line.split()[1]) for line in out.splitlines()[1:]}
    assert means["optimal"] == pytest.approx(13 / 3, abs=0.01)
    assert means["remembering"] < means["memoryless"]

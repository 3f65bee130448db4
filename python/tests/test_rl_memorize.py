"""Opt-in: Memorize-v0 with Stable-Baselines3 and sb3-contrib as they come: `make_vec_env`, SB3's `check_env`, and
the RecurrentPPO-against-PPO example (Examples/python/memorize_rl.py) with a tiny budget.

They need torch and sb3-contrib, so they run only with G2048_RL_TESTS=1: `bash Examples/python/rl-examples.sh`
installs everything into `.venv-rl` and runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pytest

import gym2048  # noqa: F401 - registers Memorize-v0

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Examples", "python", "memorize_rl.py")

if os.environ.get("G2048_RL_TESTS") != "1":
    pytest.skip("RL tests are opt-in: run `bash Examples/python/rl-examples.sh` (or set G2048_RL_TESTS=1 in a venv "
                "with torch and sb3-contrib)", allow_module_level=True)
for _module in ("torch", "sb3_contrib"):
    pytest.importorskip(_module, reason="run `bash Examples/python/rl-examples.sh`, which installs it")


def test_make_vec_env_builds_memorize_as_it_comes() -> None:
    """SB3 asks for render_mode="rgb_array" unless told otherwise: the frames are the cards, drawn."""
    from stable_baselines3.common.env_util import make_vec_env
    envs = make_vec_env("Memorize-v0", n_envs=2, seed=1, env_kwargs={"rows": 3, "cols": 4})
    try:
        observations = envs.reset()
        assert observations.shape == (2, 3, 4)
        observations, rewards, dones, infos = envs.step(np.array([0, 1]))
        assert rewards.tolist() == [0.0, 0.0] and not dones.any() and all(info["moves"] == 0 for info in infos)
        frames = envs.get_images()
        assert len(frames) == 2 and all(frame.dtype == np.uint8 and frame.ndim == 3 for frame in frames)
    finally:
        envs.close()


@pytest.mark.parametrize("options", [{}, {"rows": 3, "cols": 4, "mismatch_penalty": 1 / 12, "max_steps": 240}])
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
def test_sb3s_check_env_passes(options: dict[str, Any], render_mode: Any) -> None:
    from stable_baselines3.common.env_checker import check_env
    env = gymnasium.make("Memorize-v0", render_mode=render_mode, **options)
    try:
        # SB3 warns that a (rows, cols) observation is neither an image nor a vector: a warning, which it may give.
        check_env(env)
        check_env(env.unwrapped)
    finally:
        env.close()


def test_the_example_trains_both_agents_and_reports_against_the_optimum() -> None:
    process = subprocess.run([sys.executable, EXAMPLE, "--timesteps", "1024", "--envs", "4", "--hidden", "16",
                              "--eval-games", "16", "--seed", "2", "--json"],
                             capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stderr[-4000:]
    result = json.loads(process.stdout)
    assert result["options"] == {"rows": 3, "cols": 4, "mismatch_penalty": 1 / 12, "max_steps": 240}
    assert abs(result["optimal_moves"] - 9.1625) < 1e-4 and result["perfect_exact_moves"] == result["optimal_moves"]
    for agent in ("recurrent_ppo", "ppo", "random", "perfect"):
        row = result[agent]
        assert row["games"] == 16 and 0 < row["finished"] <= 16
        assert row["mean_moves"] >= 6, "six pairs take six moves at least"
        assert row["fraction_of_optimum"] == pytest.approx(result["optimal_moves"] / row["mean_moves"])
    for agent in ("recurrent_ppo", "ppo"):
        assert result[agent]["train_seconds"] > 0

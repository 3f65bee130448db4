"""Opt-in end-to-end runs of the RL examples: MaskablePPO training and Ray rollouts, each with a tiny budget.

They need torch, sb3-contrib and ray, and take a minute, so they run only with G2048_RL_TESTS=1:
`bash Examples/python/rl-examples.sh` installs everything into `.venv-rl` and runs them.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
import subprocess
import sys
from typing import Any

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "Examples", "python")

_missing = [name for name in ("gym2048", "sb3_contrib", "torch", "ray") if importlib.util.find_spec(name) is None]
if os.environ.get("G2048_RL_TESTS") != "1":
    pytest.skip("RL example tests are opt-in: run `bash Examples/python/rl-examples.sh` "
                "(or set G2048_RL_TESTS=1 in a venv with torch, sb3-contrib and ray)", allow_module_level=True)
if _missing:
    pytest.skip(f"RL example tests need {', '.join(_missing)}: run `bash Examples/python/rl-examples.sh`",
                allow_module_level=True)


def run_script(name: str, *args: str, timeout: float = 600) -> tuple[Any, str]:
    """Run an example (a script of Examples/python, or a module of the package) with this Python; returns its
    parsed --json output."""
    command = ["-m", name] if name.startswith("gym2048.") else [os.path.join(EXAMPLES, name)]
    process = subprocess.run([sys.executable, *command, *args, "--json"],
                             capture_output=True, text=True, timeout=timeout)
    assert process.returncode == 0, f"{name} failed:\n{process.stderr[-4000:]}"
    return json.loads(process.stdout), process.stderr


def test_maskable_ppo_trains_and_reports_both_means_over_the_same_seeds() -> None:
    result, stderr = run_script("gym2048.examples.maskable_ppo", "--timesteps", "1024", "--envs", "2",
                                "--eval-episodes", "3", "--seed", "3")
    assert "[train] done" in stderr
    assert result["timesteps"] >= 1024
    for agent in ("maskable_ppo", "random_legal"):
        stats = result[agent]
        assert stats["episodes"] == 3
        assert math.isfinite(stats["mean_score"]) and stats["mean_score"] > 0
        assert sum(stats["max_tiles"].values()) == 3
        assert all(int(tile) >= 4 for tile in stats["max_tiles"])
    assert [e["seed"] for e in result["maskable_ppo"]["episodes_detail"]] == \
        [e["seed"] for e in result["random_legal"]["episodes_detail"]]


def without_times(result: Any) -> Any:
    """A run's result without the wall-clock times (and the speed they give), which differ between runs."""
    for key in ("train_seconds", "steps_per_second"):
        result.pop(key)
    for row in result["curve"]:
        row.pop("seconds")
    return result


def test_maskable_ppo_is_reproducible_with_its_seed() -> None:
    args = ("--timesteps", "512", "--envs", "2", "--eval-episodes", "2", "--seed", "5")
    first, _ = run_script("gym2048.examples.maskable_ppo", *args)
    second, _ = run_script("gym2048.examples.maskable_ppo", *args)
    assert without_times(first) == without_times(second)


def test_the_adapter_trains_exactly_as_dummy_vec_env_does() -> None:
    """Same seeds, same episodes: MaskablePPO through Gym2048SB3VecEnv and through DummyVecEnv over single
    environments learns the same weights and plays the same evaluation games."""
    args = ("--timesteps", "1024", "--envs", "4", "--eval-episodes", "2", "--seed", "7")
    ours, _ = run_script("gym2048.examples.maskable_ppo", *args)
    dummy, _ = run_script("gym2048.examples.maskable_ppo", *args, "--vec", "dummy")
    for result in (ours, dummy):
        result.pop("vec")
    assert without_times(ours) == without_times(dummy)


def test_maskable_ppo_refuses_a_bad_budget() -> None:
    process = subprocess.run([sys.executable, "-m", "gym2048.examples.maskable_ppo", "--minutes", "0"],
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 2
    assert "argument --minutes: must be a positive number, got 0.0" in process.stderr


def test_maskable_ppo_writes_its_learning_curve_as_csv_and_json(tmp_path: Any) -> None:
    """One row a rollout (4 boards x 128 steps): the steps so far, and the mean score of the episodes that ended."""
    path = tmp_path / "curve.csv"
    result, _ = run_script("gym2048.examples.maskable_ppo", "--timesteps", "2048", "--envs", "4", "--rows", "3",
                           "--cols", "3", "--eval-episodes", "2", "--csv", str(path))
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    assert list(rows[0]) == ["steps", "seconds", "episodes", "mean_score"]
    assert [int(row["steps"]) for row in rows] == [512, 1024, 1536, 2048]
    episodes = [int(row["episodes"]) for row in rows]
    assert episodes == sorted(episodes) and episodes[0] > 0
    assert all(float(row["mean_score"]) > 0 for row in rows)
    assert [{key: float(value) for key, value in row.items()} for row in rows] == result["curve"]


def test_maskable_ppo_logs_to_tensorboard(tmp_path: Any) -> None:
    pytest.importorskip("tensorboard")
    run_script("gym2048.examples.maskable_ppo", "--timesteps", "512", "--envs", "2", "--eval-episodes", "1",
               "--tensorboard", str(tmp_path))
    events = [name for _, _, names in os.walk(tmp_path) for name in names if name.startswith("events.out.tfevents")]
    assert len(events) == 1


def test_maskable_ppo_reports_its_exact_fraction_of_optimal_play(tmp_path: Any) -> None:
    from gym2048 import find_binary
    solution = str(tmp_path / "s2x2.bin")
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "2", "--out", solution], check=True,
                   capture_output=True)
    result, _ = run_script("gym2048.examples.maskable_ppo", "--timesteps", "512", "--envs", "2", "--rows", "2",
                           "--cols", "2", "--eval-episodes", "1", "--solution", solution)
    exact = result["exact"]
    assert exact["player"] == "maskable_ppo"
    assert 0 < exact["fraction_of_optimal"] <= 1
    assert exact["expected_score"] == pytest.approx(exact["fraction_of_optimal"] * exact["optimal_score"])


def test_maskable_ppo_refuses_a_solution_of_another_board(tmp_path: Any) -> None:
    from gym2048 import find_binary
    solution = str(tmp_path / "s2x2.bin")
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "2", "--out", solution], check=True,
                   capture_output=True)
    process = subprocess.run([sys.executable, "-m", "gym2048.examples.maskable_ppo", "--timesteps", "256", "--envs",
                              "2", "--eval-episodes", "1", "--solution", solution],
                             capture_output=True, text=True, timeout=300)
    assert process.returncode == 1
    assert "error: --solution is a 2x2 board, the policy plays 4x4" in process.stderr


def test_ray_rollouts_on_two_actors_each_step_and_finish_episodes() -> None:
    result, _ = run_script("ray_rollouts.py", "--actors", "2", "--num-envs", "16", "--seconds", "2",
                           "--cpus-per-actor", "0.5")
    actors = result["actors"]
    assert len(actors) == 2
    assert len({a["where"] for a in actors}) == 2  # two actor processes, one server each
    for actor in actors:
        assert actor["steps"] > 0 and actor["steps"] % 16 == 0
        assert actor["episodes"] > 0 and len(actor["scores"]) == actor["episodes"]
        assert all(score > 0 for score in actor["scores"])
    assert result["total"]["steps"] == sum(a["steps"] for a in actors)
    assert result["total"]["steps_per_second"] > 0


def test_ray_rollouts_says_when_the_cluster_is_too_small_instead_of_waiting() -> None:
    process = subprocess.run([sys.executable, os.path.join(EXAMPLES, "ray_rollouts.py"), "--actors", "4",
                              "--cpus-per-actor", "1000", "--seconds", "1"],
                             capture_output=True, text=True, timeout=300)
    assert process.returncode == 1
    assert "error: --actors 4 × --cpus-per-actor 1000 needs 4000 CPUs" in process.stderr


def test_ppo_curves_runs_every_seed_and_draws_mean_and_spread(tmp_path: Any) -> None:
    """Two seeds on 2x2 (4 rollouts of 32 x 128 steps each), with a solution: one CSV row a bin, an SVG of the
    board, a summary with the exact fraction."""
    from gym2048 import find_binary
    solution = str(tmp_path / "s2x2.bin")
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "2", "--out", solution], check=True,
                   capture_output=True)
    process = subprocess.run([sys.executable, os.path.join(EXAMPLES, "ppo_curves.py"), "--boards", "2x2", "--seeds",
                              "1,2", "--timesteps", "16384", "--bins", "4", "--random-episodes", "50", "--jobs", "2",
                              "--solution", solution, "--runs", str(tmp_path / "runs"), "--out", str(tmp_path),
                              "--label", "a label"], capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stderr[-4000:]
    with open(tmp_path / "ppo-curves.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert [(row["board"], int(row["steps_to"])) for row in rows] == [("2x2", 4096 * k) for k in range(1, 5)]
    for row in rows:
        seeds = [float(row["seed1"]), float(row["seed2"])]
        assert float(row["lowest"]) == min(seeds) and float(row["highest"]) == max(seeds)
        assert float(row["mean"]) == pytest.approx(sum(seeds) / 2, abs=0.06)
    image = (tmp_path / "ppo-2x2.svg").read_text()
    assert image.startswith("<svg") and 'class="mean"' in image and 'class="spread"' in image
    assert "optimal play" in image and "a label" in image
    summary = process.stdout.splitlines()
    assert summary[2].startswith("| 2x2 | 16,384 | 2 | ") and summary[2].count(" % (") == 1
    assert sorted(os.listdir(tmp_path / "runs")) == sorted(f"2x2-seed{seed}.{kind}" for seed in (1, 2)
                                                            for kind in ("csv", "json", "log"))

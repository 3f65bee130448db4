"""gym2048.Gym2048Env through gymnasium: registration, options, encodings, check_env, render, errors, cleanup."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

import gym2048
from gym2048 import G2048Error, G2048OptionError, G2048ParamsError, Gym2048Env
from conftest import server_children

ENCODINGS = ["exponents", "values", "onehot", "base64", "base64_batch"]


def game(env: gymnasium.Env[Any, Any]) -> Gym2048Env:
    """The Gym2048Env under the wrappers gymnasium.make puts around it."""
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, Gym2048Env)
    return unwrapped


@pytest.mark.parametrize("observation", ENCODINGS)
@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_check_env_passes_without_warnings_for_every_encoding(observation: str, render_mode: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make("Gym2048-v0", observation=observation, render_mode=render_mode, rows=3, cols=4)
        check_env(env.unwrapped)
        env.close()


@pytest.mark.parametrize("observation, shape, dtype, high", [
    ("exponents", (4, 4), np.uint8, 17), ("base64", (4, 4), np.uint8, 17), ("values", (4, 4), np.int64, 131072),
    ("onehot", (18, 4, 4), np.uint8, 1)])
def test_observation_space_comes_from_the_spec_and_holds_every_observation(observation: str, shape: tuple[int, ...],
                                                                           dtype: type[np.generic], high: int) -> None:
    env = gymnasium.make("Gym2048-v0", observation=observation)
    space = env.observation_space
    assert isinstance(space, spaces.Box)
    assert space.shape == shape and space.dtype == dtype and space.high.max() == high
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(200):
        assert obs.dtype == dtype and space.contains(obs)
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            obs, info = env.reset()
    env.close()


def test_encodings_agree_on_the_board() -> None:
    boards: dict[str, npt.NDArray[Any]] = {}
    for observation in ENCODINGS:
        env = Gym2048Env(observation=observation)
        obs, _ = env.reset(seed=11)
        obs, *_ = env.step(3)
        if observation == "values":
            obs = np.where(obs > 0, np.log2(np.maximum(obs, 1)), 0).astype(np.uint8)
        elif observation == "onehot":
            obs = obs.argmax(axis=0).astype(np.uint8)
        boards[observation] = obs
        env.close()
    for observation, board in boards.items():
        np.testing.assert_array_equal(board, boards["exponents"], err_msg=observation)


def test_every_server_option_is_a_keyword_and_the_server_checks_it() -> None:
    env = gymnasium.make("Gym2048-v0", rows=3, cols=5, max_steps=2, win_tile=64, invalid_action="reject",
                         info=["action_mask", "score", "afterstate"], spawn_four_probability=0.5)
    obs, info = env.reset(seed=1)
    assert obs.shape == (3, 5) and set(info) == {"action_mask", "score", "afterstate"}
    assert info["afterstate"] is None
    _, _, _, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert info["afterstate"].shape == (3, 5)
    _, _, _, truncated, _ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert truncated  # max_steps=2 reached the server
    env.close()
    with pytest.raises(TypeError, match="unknown option 'colour'"):
        gymnasium.make("Gym2048-v0", colour="red")
    with pytest.raises(ValueError, match="rows must be an integer from 2 to 8, got 99"):
        gymnasium.make("Gym2048-v0", rows=99)
    with pytest.raises(G2048OptionError):
        Gym2048Env(colour="red")


@pytest.mark.parametrize("backend", ["inprocess", "server"])
def test_a_bad_action_names_the_action_space(backend: str) -> None:
    env = Gym2048Env(backend=backend)
    env.reset(seed=1)
    for action, error in ((9, ValueError), (-1, ValueError), ("sideways", TypeError)):
        with pytest.raises(error, match="Discrete\\(4\\)"):
            env.step(action)
    env.close()


def test_custom_board_above_the_space_is_refused_with_the_servers_message() -> None:
    env = gymnasium.make("Gym2048-v0", rows=2, cols=2)  # high: 2^5
    obs, _ = env.reset(options={"board": [[32, 0], [0, 2]]})
    assert env.observation_space.contains(obs) and obs[0, 0] == 5
    with pytest.raises(ValueError, match=r"board cell 0 must hold at most 32 .*got 2\^6") as error:
        env.reset(options={"board": [[64, 0], [0, 2]]})
    assert isinstance(error.value, G2048Error) and error.value.code == -32602
    env.close()


def test_steps_and_masks_until_the_end() -> None:
    env = Gym2048Env(rows=3, cols=3, render_mode="ansi")
    obs, info = env.reset(seed=5)
    total, done = 0.0, False
    rng = np.random.default_rng(0)
    while not done:
        np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        total += float(reward)
        done = terminated or truncated
    assert info["score"] == total and info["action_mask"].sum() == 0
    assert "\n" in env.render()
    env.close()


def test_rgb_array_draws_the_board_in_tile_colours() -> None:
    env = gymnasium.make("Gym2048-v0", render_mode="rgb_array", rows=2, cols=2)
    env.reset(options={"board": [[2, 4], [32, 0]]})
    image = env.render()
    assert isinstance(image, np.ndarray)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] % 16 == 0 and image.shape[1] % 16 == 0
    h, w = image.shape[0] // 2, image.shape[1] // 2
    quarters = [image[:h, :w], image[:h, w:], image[h:, :w], image[h:, w:]]
    colours = [tuple(np.median(q.reshape(-1, 3), axis=0).astype(int)) for q in quarters]
    assert colours[0] == (0xEE, 0xE4, 0xDA) and colours[2] == (0xF6, 0x7C, 0x5F) and colours[3] == (0xCD, 0xC1, 0xB4)
    # Digits are drawn: the 32 tile holds its light text colour, the empty cell none.
    assert (quarters[2] == (0xF9, 0xF6, 0xF2)).all(axis=2).sum() > 50
    assert not (quarters[3] == (0xF9, 0xF6, 0xF2)).all(axis=2).any()
    env.close()


def test_record_video_writes_a_file(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    # Typed as the Env it is used as: RecordVideo's own close() carries no annotations.
    env: gymnasium.Env[Any, Any] = gymnasium.wrappers.RecordVideo(
        gymnasium.make("Gym2048-v0", render_mode="rgb_array"), str(tmp_path / "videos"),
        episode_trigger=lambda episode: True)
    _, info = env.reset(seed=3)
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            break
    env.close()
    videos = [name for name in os.listdir(tmp_path / "videos") if name.endswith(".mp4")]
    assert videos and os.path.getsize(tmp_path / "videos" / videos[0]) > 1000


def test_close_is_idempotent_and_stops_the_server() -> None:
    env = gymnasium.make("Gym2048-v0", backend="server")
    pid = game(env).server_pid
    assert pid in server_children()
    env.close()
    env.close()
    assert pid not in server_children() and game(env).server_pid is None


def test_a_dropped_env_leaves_no_process() -> None:
    gc.collect()
    before = server_children()
    env = gymnasium.make("Gym2048-v0", backend="server")
    env.reset(seed=1)
    pid = game(env).server_pid
    assert pid is not None
    assert server_children() - before == {pid}
    del env
    gc.collect()
    assert server_children() == before
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_make_with_the_module_prefix_needs_no_import() -> None:
    code = ("import gymnasium\n"
            "env = gymnasium.make('gym2048:Gym2048-v0', rows=3, cols=3)\n"
            "obs, info = env.reset(seed=1)\n"
            "print(type(env.unwrapped).__name__, obs.shape)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.expanduser("~"), check=True).stdout
    assert out.strip() == "Gym2048Env (3, 3)"


def test_package_exports() -> None:
    assert gym2048.Gym2048Env is Gym2048Env
    spec = gymnasium.spec("Gym2048-v0")
    assert spec.entry_point == "gym2048.env:Gym2048Env"
    assert spec.vector_entry_point == "gym2048.vector:Gym2048VectorEnv"


def test_one_version_for_the_package_the_library_and_the_command() -> None:
    """The package's version is the library's, with `.devN+g<commit>` from a clone: N counts the commits, so a
    wheel from a later commit has a later version."""
    from gym2048 import native
    from gym2048.client import find_binary
    library_version = native.library().g2048_library_version().decode()
    assert gym2048.__version__.split(".dev")[0] == library_version
    command = subprocess.run([find_binary(), "--version"], capture_output=True, text=True, check=True).stdout
    assert library_version in command
    if ".dev" in gym2048.__version__:
        # N is the number of commits up to the one the package was built from, so a later build is a later version.
        count, commit = gym2048.__version__.split(".dev")[1].split("+g")
        counted = subprocess.run(["git", "rev-list", "--count", commit], capture_output=True, text=True,
                                 cwd=os.path.dirname(__file__)).stdout.strip()
        assert counted == count

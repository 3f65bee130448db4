"""The conformance suite of every game the engine lists (`g2048_games`), through its Gymnasium id: both backends
play the same games byte for byte, `check_env` passes, a seed is a trajectory, a vector is N single environments
seeded as the engine derives their seeds, and refusals carry the engine's messages. A game added to the engine's
registry is tested here without a line more."""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gym2048
from gym2048.client import G2048Error, splitmix64
from gym2048.game_envs import AUTORESET_MODES, GameEnv, GameVectorEnv, env_id
from gym2048.native import games_table
from gym2048.text_image import _FONT, text_image

GAMES = [game["name"] for game in games_table()]
#: Small options of each game, where its defaults are large (the suite plays hundreds of steps).
SMALL: dict[str, dict[str, Any]] = {"2048": {"rows": 2, "cols": 3}, "memorize": {"rows": 2, "cols": 3}}
BACKENDS = ("inprocess", "server")


def game_id(name: str) -> str:
    return "Gym2048-v0" if name == "2048" else env_id(name)


def plain(value: Any) -> Any:
    """A result as plain Python values with their dtypes, for exact comparison."""
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.tolist()) if value.dtype != object else [plain(v) for v in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return (type(value).__name__, value)


def legal(mask: Any, noise: Any) -> int:
    """A legal action drawn from `mask` by `noise` (every action when the game gives no mask)."""
    return int(np.argmax((np.asarray(mask) + 1e-9) * noise))


def play(env: Any, seed: int, steps: int = 80, draw: int = 0) -> list[Any]:
    """A seeded game of random legal actions on a single environment, reset at each episode's end: every result."""
    rng = np.random.default_rng(draw)
    actions = int(env.action_space.n)
    observation, info = env.reset(seed=seed)
    out: list[Any] = [plain(observation), plain(info)]
    for _ in range(steps):
        action = legal(info.get("action_mask", np.ones(actions)), rng.random(actions))
        result = env.step(action)
        out.append(plain(result))
        info = result[4]
        if result[2] or result[3]:
            observation, info = env.reset()
            out.append(plain((observation, info)))
    return out


def play_vector(envs: Any, seed: int, steps: int = 60, until_an_end: bool = False) -> list[Any]:
    """Seeded random legal actions; `until_an_end` stops at the first ended episode (under autoreset_mode
    "disabled" a step after it is refused, and a game's episode may end at its first step)."""
    rng = np.random.default_rng(0)
    n, actions = envs.num_envs, int(envs.single_action_space.n)
    observations, infos = envs.reset(seed=seed)
    out: list[Any] = [plain(observations), plain(infos)]
    for _ in range(steps):
        masks = infos.get("action_mask", np.ones((n, actions), np.int8))
        result = envs.step(np.argmax((masks + 1e-9) * rng.random((n, actions)), axis=1))
        infos = result[4]
        out.append(plain(result))
        if until_an_end and (np.any(result[2]) or np.any(result[3])):
            break
    return out


def closing(*envs: Any) -> Callable[[], None]:
    def close() -> None:
        for env in envs:
            env.close()
    return close


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_every_game_but_2048_has_its_id_and_the_generic_classes(game: str) -> None:
    spec = gymnasium.spec(game_id(game))
    if game == "2048":
        assert spec.entry_point == "gym2048.env:Gym2048Env"
        return
    assert spec.entry_point == "gym2048.game_envs:GameEnv" and spec.kwargs == {"game": game}
    assert spec.vector_entry_point == "gym2048.game_envs:GameVectorEnv"
    assert {"name": game, "id": game_id(game)}.items() <= next(g for g in gym2048.games() if g["name"] == game).items()
    env, envs = gymnasium.make(game_id(game)), gymnasium.make_vec(game_id(game), num_envs=2)
    try:
        assert isinstance(env.unwrapped, GameEnv) and isinstance(envs, GameVectorEnv)
    finally:
        env.close()
        envs.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_check_env_passes(game: str, backend: str) -> None:
    env = gymnasium.make(game_id(game), backend=backend, render_mode="ansi", **SMALL.get(game, {}))
    try:
        check_env(env.unwrapped, skip_render_check=False)
        env.reset(seed=1)
        assert isinstance(env.render(), str)
    finally:
        env.close()


def test_both_backends_play_the_same_games(game: str) -> None:
    a, b = (gymnasium.make(game_id(game), backend=backend, **SMALL.get(game, {})) for backend in BACKENDS)
    try:
        assert a.unwrapped.spec_info == b.unwrapped.spec_info  # type: ignore[attr-defined]
        for seed in (3, 4):
            assert play(a, seed) == play(b, seed)
    finally:
        closing(a, b)()


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_both_backends_play_the_same_vectors(game: str, mode: str) -> None:
    options = {"autoreset_mode": mode, **SMALL.get(game, {})}
    a, b = (gymnasium.make_vec(game_id(game), num_envs=3, backend=backend, vectorization_mode="vector_entry_point",
                               **options) for backend in BACKENDS)
    try:
        if mode == "disabled":
            assert play_vector(a, 5, until_an_end=True) == play_vector(b, 5, until_an_end=True)
        else:
            assert play_vector(a, 5) == play_vector(b, 5)
    finally:
        closing(a, b)()


def test_a_seed_is_a_trajectory(game: str) -> None:
    env = gymnasium.make(game_id(game), **SMALL.get(game, {}))
    try:
        assert play(env, 11) == play(env, 11)
        assert play(env, 11) != play(env, 12)
    finally:
        env.close()


@pytest.mark.parametrize("num_envs", [1, 4])
def test_a_vector_is_n_single_environments(game: str, num_envs: int) -> None:
    """Lane i of `reset(seed=s)` plays as a single environment reset with the i+1-th SplitMix64 output of s; the
    step after an episode's end (next_step) resets it and ignores its action, as the single's `reset()`."""
    options = SMALL.get(game, {})
    envs = gymnasium.make_vec(game_id(game), num_envs=num_envs, vectorization_mode="vector_entry_point", **options)
    singles = [gymnasium.make(game_id(game), **options) for _ in range(num_envs)]
    try:
        actions = int(envs.single_action_space.n)  # type: ignore[attr-defined]
        observations, infos = envs.reset(seed=21)
        seeds = splitmix64(21, num_envs)
        single_infos = []
        for lane, single in enumerate(singles):
            observation, info = single.reset(seed=seeds[lane])
            assert np.array_equal(observation, observations[lane])
            single_infos.append(info)
        over = [False] * num_envs
        rng = np.random.default_rng(2)
        for _ in range(60):
            masks = infos.get("action_mask", np.ones((num_envs, actions), np.int8))
            chosen = np.argmax((masks + 1e-9) * rng.random((num_envs, actions)), axis=1)
            observations, rewards, terminated, truncated, infos = envs.step(chosen)
            for lane, single in enumerate(singles):
                if over[lane]:
                    observation, info = single.reset()
                    reward: Any = 0.0
                    ended = (False, False)
                else:
                    observation, reward, *flags, info = single.step(int(chosen[lane]))
                    ended = (bool(flags[0]), bool(flags[1]))
                over[lane] = any(ended)
                assert np.array_equal(observation, observations[lane])
                assert reward == rewards[lane] and ended == (terminated[lane], truncated[lane])
                for key, value in info.items():
                    if infos.get("_" + key, np.zeros(num_envs, bool))[lane]:
                        assert np.array_equal(np.asarray(value), np.asarray(infos[key][lane])), key
    finally:
        closing(envs, *singles)()


@pytest.mark.parametrize("backend", BACKENDS)
def test_refusals_carry_the_engines_messages(game: str, backend: str) -> None:
    with pytest.raises(G2048Error, match="unknown option 'no_such_option'"):
        gymnasium.make(game_id(game), backend=backend, no_such_option=1)
    env = gymnasium.make(game_id(game), backend=backend, **SMALL.get(game, {}))
    try:
        with pytest.raises((G2048Error, gymnasium.error.ResetNeeded), match="reset"):
            env.step(0)
    finally:
        env.close()


@pytest.mark.parametrize("cls", [GameEnv, GameVectorEnv])
def test_copies_and_pickles_are_refused(game: str, cls: Any) -> None:
    import copy
    import pickle
    if game == "2048":
        pytest.skip("2048's classes save their state: they copy (test_state.py)")
    env = cls(game, **SMALL.get(game, {}))
    try:
        for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
            with pytest.raises(TypeError, match=f"make another {cls.__name__} with the same options"):
                attempt(env)
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_2048s_own_classes_play_as_the_generic_ones(mode: str) -> None:
    """2048's Gym2048Env and its vector (encodings, afterstates, saved states on top) are the generic classes'
    games: the same seeds and actions, legal or not, give the same boards, rewards, flags and shared info columns,
    and the same final observations under same_step."""
    options: dict[str, Any] = {"rows": 3, "cols": 3, "max_steps": 40, "invalid_action": "terminate",
                               "invalid_action_penalty": 2}
    own = gymnasium.make_vec("Gym2048-v0", num_envs=5, vectorization_mode="vector_entry_point", autoreset_mode=mode,
                             **options)
    generic = GameVectorEnv("2048", num_envs=5, autoreset_mode=mode, **options)
    single_own, single_generic = gymnasium.make("Gym2048-v0", **options), GameEnv("2048", **options)
    try:
        assert np.array_equal(own.reset(seed=9)[0], generic.reset(seed=9)[0])
        rng = np.random.default_rng(4)
        endings = 0
        for _ in range(150):
            actions = rng.integers(0, 4, size=5)  # uniform: illegal moves terminate with the penalty
            a: Any = own.step(actions)
            b: Any = generic.step(actions)
            for index in range(4):
                assert np.array_equal(a[index], b[index]), index
            shared = {key for key in set(a[4]) & set(b[4]) if not key.startswith(("_", "final"))}
            assert {"score", "action_mask"} <= shared
            for key in shared:
                assert np.array_equal(np.asarray(a[4][key]), np.asarray(b[4][key]).astype(np.asarray(a[4][key]).dtype)), key
            if mode == "same_step" and a[4].get("_final_obs", np.zeros(5, bool)).any():
                endings += 1
                assert np.array_equal(a[4]["_final_obs"], b[4]["_final_obs"])
                for lane in np.flatnonzero(a[4]["_final_obs"]):
                    assert np.array_equal(a[4]["final_obs"][lane], b[4]["final_obs"][lane])
                    assert a[4]["final_info"]["score"][lane] == b[4]["final_info"]["score"][lane]
        assert mode != "same_step" or endings > 0
        for env in (single_own, single_generic):
            env.reset(seed=7)
        for action in np.random.default_rng(5).integers(0, 4, size=120):
            x, y = single_own.step(int(action)), single_generic.step(int(action))
            assert np.array_equal(x[0], y[0]) and x[1:4] == y[1:4] and x[4]["score"] == y[4]["score"]
            if x[2] or x[3]:
                assert np.array_equal(single_own.reset()[0], single_generic.reset()[0])
    finally:
        closing(own, generic, single_own, single_generic)()


@pytest.mark.parametrize("num_envs", [1, 3])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_a_vector_gives_what_gymnasiums_sync_vector_gives(game: str, mode: str, num_envs: int) -> None:
    """Gymnasium 1.x's conventions, by its own SyncVectorEnv over single environments seeded alike: the same
    observations, rewards, flags and infos, their `_key` masks and dtypes; under same_step `final_obs` and
    `final_info` (with theirs) for exactly the lanes that ended, under next_step none (the step after an end
    resets the lane, with reward 0)."""
    if game == "2048":
        pytest.skip("2048's generic vector is compared with Gym2048VectorEnv (test_2048s_own_classes_...)")
    options = SMALL.get(game, {})
    ours: Any = GameVectorEnv(game, num_envs=num_envs, autoreset_mode=mode, **options)
    theirs: Any = gymnasium.vector.SyncVectorEnv([lambda: GameEnv(game, **options) for _ in range(num_envs)],
                                                 autoreset_mode=AUTORESET_MODES[mode])
    try:
        seeds = [31 + lane for lane in range(num_envs)]
        a: Any = ours.reset(seed=seeds)
        assert plain(a) == plain(theirs.reset(seed=seeds))
        rng = np.random.default_rng(6)
        actions, endings = int(ours.single_action_space.n), 0
        infos = a[1]
        for _ in range(80):
            masks = infos.get("action_mask", np.ones((num_envs, actions), np.int8))
            chosen = np.argmax((masks + 1e-9) * rng.random((num_envs, actions)), axis=1)
            a = ours.step(chosen)
            assert plain(a) == plain(theirs.step(chosen))
            infos = a[4]
            ended = np.logical_or(a[2], a[3])
            endings += int(ended.sum())
            assert ("final_info" in infos) == (mode == "same_step" and ended.any())
        assert endings > 0
    finally:
        closing(ours, theirs)()


def test_render_modes_are_gymnasiums(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    """"ansi" the engine's text, "rgb_array" that text drawn (what Stable-Baselines3's make_vec_env asks for),
    "human" printed at each reset and step, None nothing; any other mode is a ValueError naming the modes."""
    if game == "2048":
        pytest.skip("2048's classes render its board (test_env.py)")
    options = {"reveal_seen": True, **SMALL["memorize"]} if game == "memorize" else SMALL.get(game, {})
    for cls in (GameEnv, GameVectorEnv):
        assert cls.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
        with pytest.raises(ValueError, match=r"render_mode must be one of \['ansi', 'human', 'rgb_array'\] or "
                                             r"None, got 'rgb'"):
            cls(game, render_mode="rgb", **options)
    envs: dict[Any, Any] = {mode: gymnasium.make(game_id(game), render_mode=mode, **options)
                            for mode in ("ansi", "rgb_array", None)}
    human: Any = gymnasium.make(game_id(game), render_mode="human", **options)
    try:
        for env in (*envs.values(), human):
            env.reset(seed=3)
        assert capsys.readouterr().out == envs["ansi"].render() + "\n\n"
        frames, rng = [], np.random.default_rng(1)
        for _ in range(6):
            mask = envs["ansi"].unwrapped.action_masks()
            action = legal(mask, rng.random(len(mask)))
            for env in (*envs.values(), human):
                env.step(action)
            text, frame = envs["ansi"].render(), envs["rgb_array"].render()
            assert capsys.readouterr().out == text + "\n\n"
            assert set(text) - {"\n"} <= set(_FONT), "every character the game writes has its glyph"
            assert frame.dtype == np.uint8 and frame.shape[2] == 3 and frame.shape[0] % 16 == frame.shape[1] % 16 == 0
            assert np.array_equal(frame, text_image(text))
            frames.append(frame)
        assert any(not np.array_equal(a, b) for a, b in zip(frames, frames[1:])), "the frames follow the game"
        assert envs[None].render() is None and human.render() is None
        assert capsys.readouterr().out == envs["ansi"].render() + "\n\n"
    finally:
        closing(*envs.values(), human)()


def test_a_vectors_render_is_one_per_environment(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    if game == "2048":
        pytest.skip("2048's classes render its board (test_vector.py)")
    options = SMALL.get(game, {})
    vectors: dict[str, Any] = {mode: gymnasium.make_vec(game_id(game), num_envs=3, render_mode=mode,
                                                          vectorization_mode="vector_entry_point", **options)
                               for mode in ("ansi", "rgb_array", "human")}
    try:
        for envs in vectors.values():
            envs.reset(seed=4)
        texts, frames = vectors["ansi"].render(), vectors["rgb_array"].render()
        assert isinstance(texts, tuple) and len(texts) == 3 and isinstance(frames, tuple) and len(frames) == 3
        assert all(np.array_equal(frame, text_image(text)) for frame, text in zip(frames, texts))
        assert capsys.readouterr().out == "\n\n".join(texts) + "\n\n"
        for envs in vectors.values():
            envs.step(np.zeros(3, dtype=np.int64))
        assert capsys.readouterr().out == "\n\n".join(vectors["ansi"].render()) + "\n\n"
        assert vectors["human"].render() is None
    finally:
        closing(*vectors.values())()

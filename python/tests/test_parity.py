"""One contract, two transports: generated options, seeds, boards and episodes go to the in-process engine and to
`g2048 serve`, which must agree on acceptance, exception class, message, spaces and `spec_info`, and play the same
episodes bit for bit (the info field `moves`, served by the server only, aside)."""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Union

import numpy as np
import pytest

from gym2048 import Gym2048Env, Gym2048VectorEnv
from gym2048.native import options_table

SEED = int(os.environ.get("G2048_PARITY_SEED", "26"))
CASES = int(os.environ.get("G2048_PARITY_CASES", "120"))


def outcome(make: Callable[[], Any]) -> tuple[Any, ...]:
    """What a door did with an input: its spec and spaces, or its exception's class and message."""
    try:
        env = make()
    except Exception as error:  # noqa: BLE001 - the class is part of what must agree
        return ("refused", type(error).__name__, str(error))
    try:
        space = env.single_observation_space if hasattr(env, "single_observation_space") else env.observation_space
        return ("made", env.spec_info, space.shape, str(space.dtype), int(np.max(space.high)))
    finally:
        env.close()


def value_for(option: dict[str, Any], rng: np.random.Generator) -> Any:
    """A value for `option`: good, at or past its bounds, of the wrong type, huge, NaN, or a numpy scalar."""
    kind = option["type"]
    good: list[Any]
    if kind == "integer":
        low, high = option["min"], min(option["max"], option["min"] + 70)
        good = [low, high, int(rng.integers(low, high + 1))] + ([None] if option["nullable"] else [])
        bad: list[Any] = [low - 1, option["max"] + 1, 2**64 + 4, -2**70, float(low) + 0.5, float(low), str(low), True]
        numpy_values: list[Any] = [np.int64(low), np.uint8(min(high, 255)), np.float64(low)]
    elif kind == "number":
        good = [option["min"], option["max"], float(rng.random())]
        bad = [-0.5, 1.5, float("nan"), float("inf"), "0.5", None, False]
        numpy_values = [np.float32(0.25), np.float64(0.5), np.int64(1)]
    elif kind == "boolean":
        good = [True, False]
        bad = [1, 0, "true", None, [True]]
        numpy_values = [np.bool_(True)]
    else:
        choices = option["choices"]
        pick = choices[int(rng.integers(len(choices)))]
        good = [pick] if kind == "choice" else [[pick], [c for c in choices if c != "moves"]]
        bad = ["bogus", 3, None, [pick] if kind == "choice" else pick, [pick, 7]]
        numpy_values = [np.str_(pick) if kind == "choice" else np.array([pick])]
    pool = good * 3 + bad + numpy_values
    return pool[int(rng.integers(len(pool)))]


def generated_options(rng: np.random.Generator) -> dict[str, Any]:
    table = [o for o in options_table() if o["name"] != "num_envs"]
    options: dict[str, Any] = {}
    for index in rng.choice(len(table), size=int(rng.integers(1, 4)), replace=False):
        option = table[int(index)]
        options[option["name"]] = value_for(option, rng)
    if rng.random() < 0.08:
        options["colour"] = 3
    if isinstance(options.get("info"), list) and "moves" in options["info"]:
        options["info"] = [field for field in options["info"] if field != "moves"]
    return options


def test_generated_options_are_judged_alike_by_both_backends() -> None:
    rng = np.random.default_rng(SEED)
    refused = made = 0
    for _ in range(CASES):
        options = generated_options(rng)
        num_envs = int(rng.choice([1, 3]))
        doors: list[Callable[..., Union[Gym2048Env, Gym2048VectorEnv]]]
        if num_envs == 1:
            doors = [lambda b=b: Gym2048Env(backend=b, **options) for b in ("inprocess", "server")]
        else:
            doors = [lambda b=b: Gym2048VectorEnv(num_envs, backend=b, **options) for b in ("inprocess", "server")]
        inprocess, server = (outcome(door) for door in doors)
        assert inprocess == server, f"options {options!r}, num_envs {num_envs}"
        refused += inprocess[0] == "refused"
        made += inprocess[0] == "made"
    assert refused > CASES // 5 and made > CASES // 5, (refused, made)


SEEDS: list[Any] = [0, 7, 2**64 - 1, 2**64, 2**64 + 5, -1, 1.0, 100.0, "5", True, np.int64(9), np.uint64(2**63)]
BOARDS: list[Any] = [[[2, 2], [0, 4]], [2, 2, 0, 4], [[2, 3], [0, 4]], [[2, 2.5], [0, 4]], [[4.0, 0], [0, 2]],
                     [[2**70, 0], [0, 2]], [[2, 2, 2], [0, 4, 8]], "board", [[8, 0], [0, 2]], [[2, 4], [8, 16]]]


def test_seeds_boards_and_reset_options_are_judged_alike() -> None:
    envs = {b: Gym2048Env(backend=b, rows=2, cols=2, info=["action_mask", "score", "afterstate", "spawn"])
            for b in ("inprocess", "server")}
    try:
        cases: list[dict[str, Any]] = [{"seed": seed} for seed in SEEDS]
        cases += [{"seed": 3, "options": {"board": board}} for board in BOARDS]
        cases += [{"seed": 3, "options": {"bord": [[2, 0], [0, 2]]}}, {"seed": 3, "options": {"board": None}}]
        for case in cases:
            results: list[tuple[Any, ...]] = []
            for env in envs.values():
                try:
                    obs, info = env.reset(**case)
                    results.append(("ok", obs.tobytes(), repr(info)))
                except Exception as error:  # noqa: BLE001
                    results.append((type(error).__name__, str(error)))
            assert results[0] == results[1], case
    finally:
        for env in envs.values():
            env.close()


ENCODINGS = ("exponents", "values", "onehot", "base64", "base64_batch", "onehot_float32", "onehot_flat")
MODES = ("next_step", "same_step", "disabled")
INFO = ["action_mask", "score", "max_tile", "steps", "invalid", "won", "afterstate", "spawn"]


def comparable(value: Any) -> Any:
    """A result in a form == compares exactly (arrays by dtype, shape and bytes)."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("objects", [comparable(v) for v in value])
        return ("array", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [comparable(item) for item in value]
    return value


def play_vector(backend: str, rows: int, cols: int, encoding: str, mode: str, steps: int) -> list[Any]:
    env = Gym2048VectorEnv(3, backend=backend, rows=rows, cols=cols, observation=encoding, autoreset_mode=mode,
                           info=INFO, max_steps=25, info_layout="rows")
    rng = np.random.default_rng(rows * 10 + cols)
    trace: list[Any] = [comparable(env.reset(seed=rows * cols))]
    for _ in range(steps):
        try:
            trace.append(comparable(env.step(rng.integers(0, 4, size=3))))
        except Exception as error:  # noqa: BLE001 - disabled autoreset: stepping an ended episode is an error
            trace.append((type(error).__name__, str(error)))
            trace.append(comparable(env.reset(seed=int(rng.integers(1 << 30)))))
    env.close()
    return trace


def play_single(backend: str, rows: int, cols: int, encoding: str) -> list[Any]:
    env = Gym2048Env(backend=backend, rows=rows, cols=cols, observation=encoding, info=INFO, win_tile=16)
    rng = np.random.default_rng(rows * 10 + cols)
    trace: list[Any] = [comparable(env.reset(seed=rows + cols))]
    for _ in range(40):
        try:
            trace.append(comparable(env.step(int(rng.integers(0, 4)))))
        except Exception as error:  # noqa: BLE001 - a step after the end: the same error from both
            trace.append((type(error).__name__, str(error)))
            trace.append(comparable(env.reset()))
    env.close()
    return trace


SIZES = [(rows, cols) for rows in range(2, 9) for cols in range(2, 9)]


@pytest.mark.parametrize("index", range(len(SIZES)))
def test_random_episodes_on_every_size_are_identical(index: int) -> None:
    rows, cols = SIZES[index]
    encoding, mode = ENCODINGS[index % len(ENCODINGS)], MODES[index % len(MODES)]
    assert play_vector("inprocess", rows, cols, encoding, mode, 40) == play_vector("server", rows, cols, encoding,
                                                                                    mode, 40)
    assert play_single("inprocess", rows, cols, encoding) == play_single("server", rows, cols, encoding)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("mode", MODES)
def test_every_encoding_and_autoreset_mode_on_4x4_is_identical(encoding: str, mode: str) -> None:
    assert play_vector("inprocess", 4, 4, encoding, mode, 60) == play_vector("server", 4, 4, encoding, mode, 60)


# -- regressions: each case the two backends once answered differently ------------------------------------------

@pytest.mark.parametrize("rows, cols", [(8, 8), (7, 8)])
def test_one_hot_on_large_boards_has_the_same_channels(rows: int, cols: int) -> None:
    shapes = [Gym2048Env(backend=b, rows=rows, cols=cols, observation="onehot").observation_space.shape
              for b in ("inprocess", "server")]
    assert shapes[0] == shapes[1] == (rows * cols + 2 if rows * cols + 2 <= 51 else 51, rows, cols)


@pytest.mark.parametrize("options, message", [
    ({"rows": "5"}, 'rows must be an integer from 2 to 8, got "5"'),
    ({"rows": 3.7}, "rows must be an integer from 2 to 8, got 3.7"),
    ({"rows": 3.0}, "rows must be an integer from 2 to 8, got 3.0"),
    ({"win_tile": 2**64 + 4}, "win_tile must be an integer from 4 to 1125899906842624, got 18446744073709551620"),
    ({"max_steps": 2**64 + 1}, "max_steps must be an integer from 1 to 9223372036854775807, got 18446744073709551617"),
    ({"max_steps": 0}, "max_steps must be an integer from 1 to 9223372036854775807, got 0"),
    ({"spawn_four_probability": float("nan")}, "spawn_four_probability must be a finite number, got nan"),
])
def test_coercions_are_refusals_with_one_message(options: dict[str, Any], message: str) -> None:
    for backend in ("inprocess", "server"):
        with pytest.raises(ValueError, match="invalid params: " + message.replace("(", r"\(").replace(")", r"\)")):
            Gym2048Env(backend=backend, **options)


@pytest.mark.parametrize("seed, message", [
    (2**64 + 5, "seed must be an unsigned 64-bit integer (0 to 18446744073709551615), got 18446744073709551621"),
])
def test_seeds_out_of_range_are_refused_not_wrapped(seed: int, message: str) -> None:
    for backend in ("inprocess", "server"):
        env = Gym2048Env(backend=backend)
        with pytest.raises(ValueError) as raised:
            env.reset(seed=seed)
        assert message in str(raised.value)
        env.close()


def test_no_message_names_a_c_function() -> None:
    env = Gym2048VectorEnv(2, backend="inprocess", autoreset_mode="disabled", max_steps=1)
    env.reset(seed=1)
    env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(Exception) as raised:
        env.step(np.zeros(2, dtype=np.int64))
    assert "g2048_" not in str(raised.value) and "call reset first" in str(raised.value)
    env.close()


def test_threads_sharing_an_in_process_environment_get_whole_results() -> None:
    """Four threads step one environment: every result's observation is its own afterstate plus its own spawn."""
    env = Gym2048VectorEnv(16, backend="inprocess", observation="exponents", info=["afterstate", "spawn"])
    env.reset(seed=4)
    torn: list[int] = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(400):
            obs, _, _, _, infos = env.step(rng.integers(0, 4, size=16))
            for i in np.flatnonzero(infos["_spawn"]):
                board = infos["afterstate"][i].reshape(-1).copy()
                spawn = infos["spawn"][i]
                board[spawn["cell"]] = int(spawn["value"]).bit_length() - 1
                if not np.array_equal(board, obs[i].reshape(-1)):
                    torn.append(int(i))

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    env.close()
    assert not torn


def test_a_forked_child_is_refused_even_while_a_thread_holds_the_lock() -> None:
    """fork() while another thread is inside a call: the child's call on the inherited environment is an error
    naming the cause, at once; never a hang on the lock that thread held, never a crash."""
    from conftest import fork_during_calls
    env = Gym2048VectorEnv(256, backend="inprocess")
    env.reset(seed=1)
    actions = np.zeros(256, dtype=np.int64)
    fork_during_calls(lambda: env.step(actions), lambda: env.step(actions),
                      "after a fork, make a new environment in the child")
    env.close()

"""Attacks on the C ABI from Python: random calls in any order, with live, destroyed and invented handles,
NULL and mis-sized buffers, malformed JSON, unknown methods, actions and options out of range. The library must answer each with a status and
(on failure) a message, and never crash. And two threads with two handles give what one thread gives."""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt
import pytest

from gym2048 import native
from gym2048.native import InProcessSession, _Buffers, _InfoBuffers, library

SEED = int(os.environ.get("G2048_FUZZ_SEED", "7"))
CALLS = int(os.environ.get("G2048_FUZZ_CALLS", "20000"))

#: Configurations and parameters, good and bad: JSON the engine must check, and text that is not JSON at all.
CONFIGS = ['{}', '{"num_envs": 3}', '{"num_envs": 7, "observation": "onehot"}', '{"rows": 8, "cols": 8}',
           '{"num_envs": 2, "observation": "values", "autoreset_mode": "same_step"}', '{"rows": 9}',
           '{"rows": 3.0}', '{"num_envs": 70000}', '{"bogus": 1}', '{"info": ["moves"]}', '[1, 2]', '{"rows":',
           '{"num_envs": 64, "rows": 2, "cols": 2, "invalid_action": "reject"}', '"text"', '',
           # Memorize: the same door and the same buffers (which refuse 2048's info columns).
           '{"game": "memorize"}', '{"game": "memorize", "num_envs": 3, "reveal_seen": true}',
           '{"game": "memorize", "rows": 3, "cols": 3}', '{"game": "chess"}', '{"game": "memorize", "max_steps": 0}']
PARAMS = [None, '{}', '{"seed": 5}', '{"seed": -1}', '{"seeds": [1, null, 3]}', '{"options": {"board": [[2, 2], [0, 4]]}}',
          '{"options": {"bord": 1}}', '{"seed": 1e2}', '{', 'null', '{"seed": 18446744073709551616}',
          '{"action": 1}', '{"actions": [0, 1, 2]}', '{"action": 99}', '{"game": "memorize"}', '{"game": "2048"}']
METHODS = [b"spec", b"reset", b"step", b"afterstates", b"render", b"make", b"close", b"nope", None]


def test_random_calls_never_crash_and_failures_say_why() -> None:
    lib, rng = library(), np.random.default_rng(SEED)
    handles: list[int] = [0, -5, 1 << 40]
    keep: list[object] = []
    statuses: set[int] = set()
    for _ in range(CALLS):
        kind = rng.integers(6)
        handle = int(rng.choice(handles)) if handles else 0
        n = int(rng.choice([0, 1, 2, 3, 7, 64]))
        # Buffers as large as any handle needs for the most environments declared below (n + 1; 8x8 one-hot of
        # 66 planes, or int64 values): C cannot see a pointer's size, so the count the caller declares (num_envs,
        # fuzzed below) is what the library checks, and the memory behind it is the caller's promise.
        board_bytes = 66 * 64
        arrays: list[npt.NDArray[Any]] = [np.zeros((n + 1) * board_bytes, np.uint8), np.zeros(n + 1, np.int64),
                                          np.zeros(n + 1, np.uint8), np.zeros(n + 1, np.uint8)]
        keep.append(arrays)
        pointers = [None if rng.random() < 0.1 else a.ctypes.data for a in arrays]
        buffers = _Buffers(int(rng.choice([n, n + 1, -1, 0])), *pointers, _InfoBuffers(), None, None, _InfoBuffers())
        if kind == 0:
            out = ctypes.c_int64()
            config = rng.choice(CONFIGS + [None])
            status = lib.g2048_make(None if config is None else str(config).encode(), ctypes.byref(out))
            if status == 0:
                handles.append(out.value)
        elif kind == 1:
            params = PARAMS[int(rng.integers(len(PARAMS)))]
            status = lib.g2048_reset(handle, None if params is None else str(params).encode(),
                                     ctypes.byref(buffers) if rng.random() < 0.95 else None)
        elif kind == 2:
            actions = rng.integers(0, 6 if rng.random() < 0.2 else 4, size=n + 1).astype(np.uint8)
            status = lib.g2048_step(handle, actions.ctypes.data if rng.random() < 0.95 else None,
                                    int(rng.choice([n, n + 1])), ctypes.byref(buffers))
        elif kind == 3:
            result = ctypes.c_char_p()
            method = METHODS[int(rng.integers(len(METHODS)))]
            params = (PARAMS + CONFIGS)[int(rng.integers(len(PARAMS) + len(CONFIGS)))]
            status = lib.g2048_call(handle, method, None if params is None else str(params).encode(),
                                    ctypes.byref(result) if rng.random() < 0.95 else None)
            if status == 0:
                assert result.value is not None
        elif kind == 4:
            result = ctypes.c_char_p()
            status = lib.g2048_spec(handle, ctypes.byref(result) if rng.random() < 0.95 else None)
        else:
            status = lib.g2048_destroy(handle)
            if status == 0 and rng.random() < 0.5:
                handles.remove(handle)
        statuses.add(status)
        if status != 0:
            assert lib.g2048_last_error().decode(), f"status {status} without a message"
    assert 0 in statuses and {1, 2}.issubset(statuses)


def run(seed: int, out: list[bytes]) -> None:
    batch = InProcessSession({"num_envs": 64, "info": ["action_mask", "score"]})
    batch.reset({"seed": seed}, lambda: None)
    actions = np.random.default_rng(seed).integers(0, 4, size=(500, 64)).astype(np.uint8)
    for row in actions:
        batch.step(row, lambda: None)
        out.append(batch.observations.tobytes() + batch.rewards.tobytes() + batch.columns["scores"].tobytes())
    batch.close()


def test_two_threads_with_two_handles_match_one_at_a_time() -> None:
    alone: list[list[bytes]] = [[], []]
    run(1, alone[0])
    run(2, alone[1])
    together: list[list[bytes]] = [[], []]
    threads = [threading.Thread(target=run, args=(seed, together[seed - 1])) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert together == alone
    assert native.library().g2048_abi_version() == native.ABI_VERSION == 13


def test_forks_at_random_moments_and_threads_that_exit_after_errors() -> None:
    """The process around the library, fuzzed: threads call at random (some failing, then exiting) while the main
    thread forks at random moments; each child calls on inherited handles (an error naming the fork), then makes
    and steps one of its own. No child may die by a signal or hang."""
    import signal
    lib, rng = library(), np.random.default_rng(SEED + 1)
    handles = []
    for config in (b'{"num_envs": 64}', b'{"num_envs": 1}', b'{"num_envs": 7, "observation": "onehot"}'):
        out = ctypes.c_int64()
        assert lib.g2048_make(config, ctypes.byref(out)) == 0
        assert lib.g2048_call(out.value, b"reset", b'{"seed": 1}', ctypes.byref(ctypes.c_char_p())) == 0
        handles.append(out.value)
    stop = threading.Event()

    methods = [b"step", b"afterstates", b"spec", b"nope"]
    params = [b'{"actions": "0"}', b'{"action": 1}', None]
    calls = [0, 0]

    def caller(seed: int) -> None:
        local = np.random.default_rng(seed)
        result = ctypes.c_char_p()
        while not stop.is_set():
            handle = (handles + [0, 999])[int(local.integers(len(handles) + 2))]
            lib.g2048_call(handle, methods[int(local.integers(4))], params[int(local.integers(3))], ctypes.byref(result))
            calls[seed] += 1

    def failing_then_exiting() -> None:
        lib.g2048_make(b'{"rows": 99}', ctypes.byref(ctypes.c_int64()))

    threads = [threading.Thread(target=caller, args=(seed,)) for seed in range(2)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(12):
            threading.Thread(target=failing_then_exiting).start()
            time_to_wait = float(rng.random()) * 0.01
            threading.Event().wait(time_to_wait)
            pid = os.fork()
            if pid == 0:
                signal.alarm(5)
                code = 0
                result = ctypes.c_char_p()
                for handle in handles:
                    if lib.g2048_call(handle, b"spec", None, ctypes.byref(result)) != 2 or \
                            b"forked" not in lib.g2048_last_error():
                        code = 3
                fresh = ctypes.c_int64()
                if lib.g2048_make(b'{"num_envs": 4}', ctypes.byref(fresh)) != 0 or \
                        lib.g2048_call(fresh.value, b"reset", None, ctypes.byref(result)) != 0:
                    code = 4
                os._exit(code)
            _, status = os.waitpid(pid, 0)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        for handle in handles:
            lib.g2048_destroy(handle)
    assert min(calls) > 100, calls  # the callers really were inside calls while the forks happened


def _answer_checks(q: npt.NDArray[np.float64], values: npt.NDArray[np.float64], moves: npt.NDArray[np.int8]) -> None:
    """A solution's three answers on the same boards agree: a board with no value has no action value and no move;
    the move is the first of the largest action values, -1 where none has one; a valued board with action values
    is worth the largest of them."""
    for i in range(len(values)):
        valued = ~np.isnan(q[i])
        if np.isnan(values[i]):
            assert not valued.any() and moves[i] == -1, (q[i], values[i], moves[i])
        if valued.any():
            assert moves[i] == int(np.nanargmax(q[i])) and values[i] == np.nanmax(q[i]), (q[i], values[i], moves[i])
        else:
            assert moves[i] == -1


def test_random_player_solution_and_report_calls_never_crash_and_agree(tmp_path: Any) -> None:
    """The players, the solutions and the evaluation report, fuzzed: loads of good, wrong-kind, damaged and missing
    files; calls on live, destroyed, invented and other-kind handles; boards with tiles past the ceiling, counts out
    of range and NULL buffers; reports of any scores up to 2^63 - 1 (whose sums pass it), bad tiles and seconds.
    Each call answers with a status and, on failure, a message; each success is checked (a solution's three
    answers agree, a report's figures are the games' own)."""
    import json
    import subprocess

    from gym2048 import find_binary
    solution_path, weights_path = str(tmp_path / "s.bin"), str(tmp_path / "w.bin")
    subprocess.run([find_binary(), "solve", "--rows", "2", "--cols", "3", "--out", solution_path], check=True,
                   capture_output=True)
    subprocess.run([find_binary(), "train", "--rows", "2", "--cols", "3", "--games", "30", "--table-share", "0",
                    "--out", weights_path], check=True, capture_output=True)
    damaged = tmp_path / "damaged.bin"
    data = bytearray((tmp_path / "s.bin").read_bytes())
    data[len(data) // 2] ^= 0x10
    damaged.write_bytes(bytes(data))
    paths = [solution_path, weights_path, str(damaged), str(tmp_path / "missing.bin"), str(tmp_path), None]
    lib, rng = library(), np.random.default_rng(SEED + 2)
    session = ctypes.c_int64()
    assert lib.g2048_make(b'{"rows": 2, "cols": 3}', ctypes.byref(session)) == 0
    players: list[int] = []
    solutions: list[int] = []
    # Invented, of another kind (a session), and destroyed ones as they come.
    others = [0, -5, 1 << 40, session.value]
    statuses: set[int] = set()
    reports = 0

    def pick(live: list[int]) -> int:
        """Mostly a live handle of the kind called, else any: of the other kind, destroyed or invented."""
        return int(rng.choice(live)) if live and rng.random() < 0.8 else int(rng.choice(players + solutions + others))

    for _ in range(max(200, CALLS // 10)):
        # Calls on the handles four times as often as destroys.
        kind = int(rng.choice([0, 1, 2, 2, 3, 3, 4, 4, 5, 6]))
        n = int(rng.choice([0, 1, 5, 64]))
        count = int(rng.choice([n, n, n, -1, (1 << 24) + 1]))
        boards = rng.integers(0, 6 if rng.random() < 0.9 else 60, size=(max(n, 1), 6)).astype(np.uint8)
        board_pointer = None if rng.random() < 0.05 else boards.ctypes.data
        if kind == 0 or kind == 1:
            out = ctypes.c_int64()
            right = weights_path if kind == 0 else solution_path
            path = right if rng.random() < 0.5 else paths[int(rng.integers(len(paths)))]
            load = lib.g2048_player_load if kind == 0 else lib.g2048_solution_load
            status = load(None if path is None else path.encode(), ctypes.byref(out) if rng.random() < 0.95 else None)
            if status == 0:
                (players if kind == 0 else solutions).append(out.value)
                assert path == (weights_path if kind == 0 else solution_path)
        elif kind == 2:
            handle = pick(players)
            values = np.zeros(max(n, 1), np.float32)
            if rng.random() < 0.5:
                status = lib.g2048_player_values(handle, board_pointer, count, values.ctypes.data)
                if status == 0:
                    assert np.isfinite(values[:count]).all()
            else:
                moves = np.zeros(max(n, 1), np.int8)
                depth = int(rng.choice([0, 1, 2, -1, 99]))
                status = lib.g2048_player_moves(handle, board_pointer, count, depth, moves.ctypes.data)
                if status == 0:
                    assert ((moves[:count] >= -1) & (moves[:count] <= 3)).all()
        elif kind == 3:
            handle = pick(solutions)
            q, worth = np.zeros((max(n, 1), 4)), np.zeros(max(n, 1))
            chosen = np.zeros(max(n, 1), np.int8)
            status = lib.g2048_solution_action_values(handle, board_pointer, count, q.ctypes.data)
            if status == 0:
                assert lib.g2048_solution_values(handle, board_pointer, count, worth.ctypes.data) == 0
                assert lib.g2048_solution_moves(handle, board_pointer, count, chosen.ctypes.data) == 0
                _answer_checks(q[:count], worth[:count], chosen[:count])
        elif kind == 4:
            games = int(rng.choice([n, n, 0, -1]))
            size = max(n, 1)
            scores = rng.integers(0, 2**63 - 1 if rng.random() < 0.3 else 100_000, size=size, dtype=np.int64)
            scores[rng.random(size) < 0.1] = 2**63 - 1
            tiles = (1 << rng.integers(1, 51 if rng.random() < 0.9 else 63, size=size)).astype(np.int64)
            if rng.random() < 0.1:
                tiles[0] = 3
            moves64 = rng.integers(0, 2**63 - 1 if rng.random() < 0.2 else 10_000, size=size, dtype=np.int64)
            if rng.random() < 0.05:
                scores[0] = -1
            seconds = float(rng.choice([1.5, 0.0])) if rng.random() < 0.9 else float(rng.choice([-1.0, np.nan, np.inf]))
            report = ctypes.c_char_p()
            rows, cols = (2, 3) if rng.random() < 0.9 else (9, 1)
            status = lib.g2048_evaluation_report(b"fuzz" if rng.random() < 0.95 else None, rows, cols,
                                                 scores.ctypes.data if rng.random() < 0.95 else None,
                                                 tiles.ctypes.data, moves64.ctypes.data, games, seconds,
                                                 ctypes.byref(report))
            if status == 0:
                assert report.value is not None
                figures = json.loads(report.value)
                played = [int(s) for s in scores[:games]]
                assert figures["games"] == games and figures["max_score"] == max(played)
                assert figures["mean_score"] == pytest.approx(sum(played) / games, rel=1e-12)
                reports += 1
        elif kind == 5:
            text = ctypes.c_char_p()
            kept = players if rng.random() < 0.5 else solutions
            info = lib.g2048_player_info if kept is players else lib.g2048_solution_info
            status = info(pick(kept), ctypes.byref(text) if rng.random() < 0.95 else None)
            if status == 0:
                assert text.value is not None
                described = json.loads(text.value)
                assert (described["rows"], described["cols"]) == (2, 3)
        else:
            kept = players if rng.random() < 0.5 else solutions
            handle = pick(kept)
            status = (lib.g2048_player_destroy if kept is players else lib.g2048_solution_destroy)(handle)
            if status == 0:
                assert handle in kept  # a handle of the other kind, or of none, is refused
                kept.remove(handle)
                others.append(handle)
        statuses.add(status)
        if status != 0:
            assert lib.g2048_last_error().decode(), f"status {status} without a message"
    for handle in players:
        lib.g2048_player_destroy(handle)
    for handle in solutions:
        lib.g2048_solution_destroy(handle)
    lib.g2048_destroy(session.value)
    assert {0, 1, 2}.issubset(statuses) and reports > 0


#: Values a caller may hand a Python door where an integer (or integers) belongs: some exact, most not.
VALUES: list[Any] = [0, 1, 3, 4, -1, 2**64, np.int8(2), np.uint64(7), np.int64(-3), 1.5, 2.0, float("nan"), True,
                     np.bool_(False), "2", None, [], [1], {}, np.float32(1.0)]
DOORS = int(os.environ.get("G2048_FUZZ_DOORS", "400"))


def exact_seed(value: Any) -> bool:
    """Whether a seed is an integer the engine takes (0 to 2^64 - 1), exactly."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and 0 <= int(value) < 2**64


def exact_actions(array: npt.NDArray[Any], count: int, top: int) -> bool:
    """Whether an action array is what every door takes: an integer dtype, shape (count,), entries 0..top."""
    return array.dtype.kind in "iu" and array.shape == (count,) and bool(((array >= 0) & (array <= top)).all())


def random_actions(rng: np.random.Generator, count: int, top: int) -> npt.NDArray[Any]:
    dtype = rng.choice(np.array([np.int8, np.int64, np.uint8, np.int32, np.float64, np.bool_, object], dtype=object))
    shape = [(count,), (count,), (count,), (1,), (count, 1), ()][int(rng.integers(6))]
    values = rng.integers(-2 if rng.random() < 0.2 else 0, top + (3 if rng.random() < 0.2 else 1), size=shape)
    return np.asarray(values).astype(dtype)


def test_python_doors_take_integers_exactly_or_refuse_them(adapters: tuple[Any, Any]) -> None:
    """Seeded values at every Python door that takes integers (the vectors of both games, `evaluate`'s policy, the
    PufferLib binding's actions, SB3's seed): each is taken when it is exact, and refused with a TypeError or
    ValueError otherwise; never rounded, cast, broadcast or hung on."""
    from conftest import hang_is_a_failure
    from gym2048 import G2048Error, Gym2048VectorEnv, MemorizeVectorEnv, evaluate
    puffer_class, sb3_class = adapters
    rng = np.random.default_rng(SEED)
    vectors: list[Any] = [Gym2048VectorEnv(3, rows=2, cols=3), MemorizeVectorEnv(3, rows=2, cols=2)]
    puffer, sb3 = puffer_class(num_envs=3, rows=2, cols=2), sb3_class(3, rows=2, cols=2)
    puffer.reset(seed=1)
    outcomes: dict[str, int] = {}
    for call in range(DOORS):
        door = int(rng.integers(5))
        if door == 0:  # a vector's seed: one value, or a list of three
            envs = vectors[int(rng.integers(2))]
            seed = VALUES[int(rng.integers(len(VALUES)))] if rng.random() < 0.5 else [
                VALUES[int(rng.integers(len(VALUES)))] for _ in range(3)]
            exact = seed is None or exact_seed(seed) or (isinstance(seed, list) and len(seed) == 3 and all(
                entry is None or exact_seed(entry) for entry in seed))
            act: Callable[[], Any] = lambda: envs.reset(seed=seed)
        elif door == 1:  # a vector's actions
            envs = vectors[int(rng.integers(2))]
            top = 3  # four moves of 2048, and the four cards of a 2x2 Memorize
            envs.reset(seed=call)
            actions = random_actions(rng, 3, top)
            exact = exact_actions(actions, 3, top)
            act = lambda: envs.step(actions)
        elif door == 2:  # evaluate's policy
            dtype = rng.choice(np.array([np.int64, np.uint8, np.float64, np.bool_], dtype=object))
            illegal = rng.random() < 0.3
            exact = dtype in (np.int64, np.uint8) and not illegal

            def policy(observations: Any, masks: Any) -> Any:
                moves = np.argmax(masks if not illegal else ~masks, axis=1)
                return moves.astype(dtype)
            act = lambda: evaluate(policy, games=4, seed=call, rows=2, cols=2)
        elif door == 3:  # the PufferLib binding's actions
            actions = random_actions(rng, 3, 3)
            exact = exact_actions(actions, 3, 3)
            act = lambda: puffer.step(actions)
        else:  # SB3's seed
            seed = VALUES[int(rng.integers(len(VALUES)))]
            # Any integer: SB3 seeds board i with seed + i, and the engine checks the range at the next reset.
            exact = seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool))
            act = lambda: sb3.seed(seed)
        error: Optional[BaseException] = None
        try:
            with hang_is_a_failure(30):
                act()
            outcome = "taken"
        except (TypeError, ValueError) as refusal:
            outcome, error = "refused", refusal
            assert str(error) and "\n" not in str(error), error
        except G2048Error as refusal:  # the engine's refusal of an exact value: a face-up card, an ended game
            outcome, error = "engine", refusal
            assert exact, f"call {call}: door {door}: {error}"
        assert (outcome != "taken") or exact, f"call {call}: door {door} took an inexact value"
        assert (outcome != "refused") or not exact, f"call {call}: door {door} refused an exact value: {error}"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    for closing in (*vectors, puffer, sb3):
        closing.close()
    assert outcomes.get("taken", 0) > DOORS // 10 and outcomes.get("refused", 0) > DOORS // 10, outcomes


def test_copies_of_every_engine_owner_are_real_or_refused() -> None:
    """Seeded copies (copy, deepcopy, pickle) of every kind of object that owns an engine session: a 2048
    environment's copy is a real one (same state, and closing it leaves the original working); every other owner's
    is a TypeError that says what to do; no copy ever shares a handle."""
    import copy
    import pickle
    from gym2048 import G2048, Gym2048Env, Gym2048VectorEnv, MemorizeEnv, MemorizeVectorEnv
    from gym2048.native import CallSession
    rng = np.random.default_rng(SEED)
    makers: list[Callable[[], Any]] = [
        lambda: Gym2048Env(rows=2, cols=3), lambda: Gym2048VectorEnv(3, rows=2, cols=3),
        lambda: Gym2048Env(rows=2, cols=3, backend="server"), lambda: MemorizeEnv(rows=2, cols=2),
        lambda: MemorizeVectorEnv(2, rows=2, cols=2, backend="server"), lambda: G2048(rows=2, cols=2),
        lambda: CallSession({"rows": 2, "cols": 2})]
    copiers: list[Callable[[Any], Any]] = [copy.copy, copy.deepcopy, lambda owner: pickle.loads(pickle.dumps(owner))]
    for round_ in range(int(os.environ.get("G2048_FUZZ_COPIES", "30"))):
        owner = makers[int(rng.integers(len(makers)))]()
        if hasattr(owner, "reset") and rng.random() < 0.8:
            owner.reset(seed=round_)
        copier = copiers[int(rng.integers(len(copiers)))]
        if isinstance(owner, (Gym2048Env, Gym2048VectorEnv)):
            twin = copier(owner)
            assert twin.spec_info == owner.spec_info
            assert owner.server_pid is None or twin.server_pid != owner.server_pid
            if owner._reset_once:
                assert twin.get_state() == owner.get_state()
            twin.close()
            owner.reset(seed=2)  # the original's session is its own
        else:
            try:
                copier(owner)
            except TypeError as error:
                assert "owns an engine handle" in str(error), error
                assert "make another" in str(error) or "start another" in str(error), error
            else:
                raise AssertionError(f"round {round_}: a copy of a {type(owner).__name__} was made")
            (owner.reset(seed=1) if hasattr(owner, "reset") else owner.call("spec"))  # still its own
        owner.close()

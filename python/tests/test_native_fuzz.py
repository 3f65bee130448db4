"""Attacks on the C ABI from Python: random calls in any order, with live, destroyed and invented handles,
NULL and mis-sized buffers, malformed JSON, unknown methods, actions and options out of range. The library must answer each with a status and
(on failure) a message, and never crash. And two threads with two handles give what one thread gives."""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Any

import numpy as np
import numpy.typing as npt

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
    assert native.library().g2048_abi_version() == native.ABI_VERSION == 8


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

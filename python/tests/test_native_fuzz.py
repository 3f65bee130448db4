"""Attacks on the C ABI from Python: random calls in any order, with live, destroyed and invented handles,
NULL and mis-sized buffers, actions and options out of range. The library must answer each with a status and
(on failure) a message, and never crash. And two threads with two handles give what one thread gives."""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np

from gym2048 import native
from gym2048.native import NativeBatch, _Buffers, _InfoBuffers, _Rules, library

SEED = int(os.environ.get("G2048_FUZZ_SEED", "7"))
CALLS = int(os.environ.get("G2048_FUZZ_CALLS", "20000"))


def test_random_calls_never_crash_and_failures_say_why() -> None:
    lib, rng = library(), np.random.default_rng(SEED)
    handles: list[int] = [0, -5, 1 << 40]
    keep: list[object] = []
    statuses: set[int] = set()
    for _ in range(CALLS):
        kind = rng.integers(6)
        handle = int(rng.choice(handles)) if handles else 0
        n = int(rng.choice([0, 1, 2, 3, 7, 64]))
        # Buffers as large as any handle needs for the most environments declared below (n + 1, 8x8): C cannot
        # see a pointer's size, so the count the caller declares (num_envs, fuzzed below) is what the library
        # checks, and the memory behind it is the caller's promise. (Sized for n, a declared n + 1 let the
        # library write past them: seed 11 corrupted the heap, found at the arrays' release.)
        cells = 64
        arrays = [np.zeros((n + 1) * cells, np.uint8), np.zeros(n + 1, np.int64), np.zeros(n + 1, np.uint8),
                  np.zeros(n + 1, np.uint8)]
        keep.append(arrays)
        pointers = [None if rng.random() < 0.1 else a.ctypes.data for a in arrays]
        buffers = _Buffers(int(rng.choice([n, n + 1, -1, 0])), *pointers, _InfoBuffers(), None, None, _InfoBuffers())
        if kind == 0:
            rules = _Rules(int(rng.integers(0, 10)), int(rng.integers(0, 10)), float(rng.choice([0.1, -1.0, 2.0, np.nan])),
                           int(rng.integers(-1, 70)), int(rng.choice([0, 2, 3, 2048, 1 << 60])),
                           int(rng.choice([0, -1, 5])), int(rng.integers(-1, 4)), int(rng.choice([0, -3, 10])))
            out = ctypes.c_int64()
            status = lib.g2048_create(ctypes.byref(rules), int(rng.integers(-1, 4)), int(rng.choice([0, 1, 3, 7, 70000])),
                                      int(rng.integers(1 << 62)), ctypes.byref(out))
            if status == 0:
                handles.append(out.value)
        elif kind == 1:
            seed = ctypes.c_uint64(int(rng.integers(1 << 62)))
            status = lib.g2048_reset(handle, ctypes.byref(seed) if rng.random() < 0.5 else None, None,
                                     ctypes.byref(buffers) if rng.random() < 0.95 else None)
        elif kind == 2:
            actions = rng.integers(0, 6 if rng.random() < 0.2 else 4, size=n + 1).astype(np.uint8)
            status = lib.g2048_step(handle, actions.ctypes.data if rng.random() < 0.95 else None,
                                    int(rng.choice([n, n + 1])), ctypes.byref(buffers))
        elif kind == 3:
            board = rng.choice([0, 2, 4, 3, 1 << 40], size=64).astype(np.int64)
            status = lib.g2048_reset(handle, None, board.ctypes.data, ctypes.byref(buffers))
        elif kind == 4:
            status = lib.g2048_reset_one(handle, int(rng.integers(-2, 9)), None, ctypes.byref(buffers))
        else:
            status = lib.g2048_destroy(handle)
            if status == 0 and rng.random() < 0.5:
                handles.remove(handle)
        statuses.add(status)
        if status != 0:
            assert lib.g2048_last_error().decode(), f"status {status} without a message"
    assert 0 in statuses and {1, 2}.issubset(statuses)


def run(seed: int, out: list[bytes]) -> None:
    batch = NativeBatch(num_envs=64, info=["action_mask", "score"])
    batch.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(0, 4, size=(500, 64)).astype(np.uint8)
    for row in actions:
        batch.step(row)
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
    assert native.library().g2048_abi_version() == 1

"""Memorize through both doors of the protocol: the in-process engine (the C ABI's `g2048_make` and `g2048_call`)
and `g2048 serve`. The same options, seeds and cards give the same results, byte for byte, and the same refusals."""

from __future__ import annotations

import ctypes
import json
from typing import Any

import numpy as np
import pytest

from gym2048.client import G2048, G2048Error
from gym2048.native import CallSession, library


def Engine(options: dict[str, Any]) -> CallSession:
    """A raw in-process session: JSON in, JSON out, through the C ABI's `g2048_make` and `g2048_call`."""
    return CallSession(options)


def play(door: Any, num_envs: int, seed: int) -> list[Any]:
    """A seeded random game through `door`: every result, in order."""
    rng = np.random.default_rng(seed)
    results = [door.call("reset", {"seed": seed})]
    for _ in range(120):
        last = results[-1]
        masks = [last["info"]["action_mask"]] if num_envs == 1 else [info["action_mask"] for info in last["info"]]
        cards = [int(rng.choice(np.flatnonzero(mask))) if any(mask) else 0 for mask in masks]
        if num_envs == 1 and (last.get("terminated") or last.get("truncated")):
            results.append(door.call("reset", {}))
            continue
        params = {"action": cards[0]} if num_envs == 1 else {"actions": cards}
        results.append(door.call("step", params))
    results.append(door.call("render", {}))
    return results


@pytest.mark.parametrize("options", [
    {"game": "memorize", "rows": 2, "cols": 3},
    {"game": "memorize", "rows": 1, "cols": 8, "reveal_seen": True, "mismatch_penalty": 0.25, "max_steps": 12},
    {"game": "memorize", "num_envs": 3, "autoreset_mode": "same_step"},
])
def test_both_doors_play_the_same_games(options: dict[str, Any]) -> None:
    engine, server = Engine(options), G2048(**options)
    try:
        assert engine.call("spec") == server.spec() == server.spec_info
        assert engine.call("spec")["game"] == "memorize"
        n = options.get("num_envs", 1)
        assert play(engine, n, 7) == play(server, n, 7)
    finally:
        engine.close()
        server.close()


@pytest.mark.parametrize("options, message", [
    ({"game": "memorize", "rows": 3, "cols": 3}, "rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
    ({"game": "memorize", "reveal_seen": "yes"}, "reveal_seen must be true or false"),
    ({"game": "solitaire"}, "game must be one of \"2048\", \"memorize\""),
])
def test_both_doors_refuse_alike(options: dict[str, Any], message: str) -> None:
    with pytest.raises(G2048Error) as in_process:
        Engine(options)
    with pytest.raises(G2048Error) as served:
        G2048(**options)
    assert message in str(in_process.value) and message in str(served.value)


def test_the_buffer_calls_are_refused_for_memorize() -> None:
    engine = Engine({"game": "memorize"})
    try:
        engine.call("reset", {"seed": 1})
        lib, handle = library(), engine.handle
        result = ctypes.c_char_p()
        assert lib.g2048_spec(handle, ctypes.byref(result)) == 0
        assert json.loads(result.value or b"null")["game"] == "memorize"
        status = lib.g2048_step(handle, None, 1, None)
        assert status != 0
        assert "serve 2048" in lib.g2048_last_error().decode()
    finally:
        engine.close()

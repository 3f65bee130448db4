"""Memorize through every door of the protocol: the in-process engine answering JSON (the C ABI's `g2048_make` and
`g2048_call`), the in-process engine writing into the caller's buffers (`g2048_reset`, `g2048_step`), and
`g2048 serve`. The same options, seeds and cards give the same results, byte for byte, and the same refusals."""

from __future__ import annotations

import ctypes
import json
from typing import Any

import numpy as np
import pytest

from gym2048.client import G2048, G2048Error
from gym2048.native import CallSession, MemorizeBufferSession, _Buffers, _InfoBuffers, library


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
    engine, buffers, server = Engine(options), MemorizeBufferSession(options), G2048(**options)
    try:
        assert engine.call("spec") == buffers.call("spec") == server.spec() == server.spec_info
        assert engine.call("spec")["game"] == "memorize"
        n = options.get("num_envs", 1)
        served = play(server, n, 7)
        assert play(engine, n, 7) == served
        assert play(buffers, n, 7) == served
        assert json.dumps(play(buffers, n, 8)) == json.dumps(play(server, n, 8))
    finally:
        engine.close()
        buffers.close()
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


def test_the_buffers_refuse_what_memorize_does_not_write() -> None:
    """2048's info columns, integer rewards under a fractional penalty, a card outside the deck: refused by name,
    nothing changed."""
    lib = library()
    session = MemorizeBufferSession({"game": "memorize", "rows": 2, "cols": 2, "mismatch_penalty": 0.5})
    try:
        session.call("reset", {"seed": 3})
        before = session.call("render", {})
        handle = session.handle
        layout = (ctypes.c_int64 * 5)()  # g2048_layout: five 8-byte slots (rows and cols share one, dtype is padded)
        assert lib.g2048_layout_get(handle, ctypes.byref(layout)) == 0
        assert layout[0] == 1 and layout[4] == 4  # num_envs, num_actions: the cards
        observations, terminations, truncations = np.zeros(4, np.uint8), np.zeros(1, np.uint8), np.zeros(1, np.uint8)
        scores, rewards, cards = np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.uint8)

        def step(info: _InfoBuffers, integer_rewards: bool = False, card: int = 0) -> str:
            cards[0] = card
            out = _Buffers(1, observations.ctypes.data, rewards.ctypes.data if integer_rewards else None,
                           terminations.ctypes.data, truncations.ctypes.data, info, None, None, _InfoBuffers(),
                           None if integer_rewards else rewards.ctypes.data)
            assert lib.g2048_step(handle, cards.ctypes.data, 1, ctypes.byref(out)) != 0
            return str(lib.g2048_last_error().decode())

        assert "out.info.scores is 2048's: a memorize session writes info.steps, info.legal_actions" in \
            step(_InfoBuffers(scores=scores.ctypes.data))
        assert "out.rewards holds integers, but mismatch_penalty 0.5 is not one" in step(_InfoBuffers(), True)
        assert "action must be a card from 0 to 3, got 9" in step(_InfoBuffers(), card=9)
        assert session.call("render", {}) == before
    finally:
        session.close()


def test_2048_buffers_refuse_memorize_columns_and_give_rewards_as_doubles() -> None:
    from gym2048.native import InProcessSession
    lib = library()
    session = InProcessSession({"rows": 2, "cols": 2})
    try:
        session.reset({"seed": 1}, lambda: None)
        observations, flags = np.zeros(4, np.uint8), np.zeros((2, 1), np.uint8)
        rewards, values, pairs = np.zeros(1, np.int64), np.zeros(1, np.float64), np.zeros(1, np.int64)
        actions = np.zeros(1, np.uint8)
        for action in range(4):  # one of the four moves is legal on a fresh 2×2 board
            actions[0] = action
            out = _Buffers(1, observations.ctypes.data, rewards.ctypes.data, flags[0].ctypes.data, flags[1].ctypes.data,
                           _InfoBuffers(), None, None, _InfoBuffers(), values.ctypes.data)
            if lib.g2048_step(session.handle, actions.ctypes.data, 1, ctypes.byref(out)) == 0:
                break
        assert values[0] == float(rewards[0])
        out = _Buffers(1, observations.ctypes.data, rewards.ctypes.data, flags[0].ctypes.data, flags[1].ctypes.data,
                       _InfoBuffers(pairs_matched=pairs.ctypes.data), None, None, _InfoBuffers(), None)
        assert lib.g2048_step(session.handle, actions.ctypes.data, 1, ctypes.byref(out)) != 0
        assert "out.info.pairs_matched is Memorize's: a 2048 session leaves it NULL" in lib.g2048_last_error().decode()
    finally:
        session.close()

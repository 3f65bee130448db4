"""Memorize through every door of the protocol: the in-process engine answering JSON (the C ABI's `g2048_make` and
`g2048_call`), the in-process engine writing the game's result columns into the caller's arrays
(`g2048_reset_columns`, `g2048_step_columns`), and `g2048 serve`. The same options, seeds and cards give the same
results, byte for byte, and the same refusals."""

from __future__ import annotations

import ctypes
import json
from typing import Any

import numpy as np
import pytest

from gym2048.client import G2048, G2048Error
from gym2048.game_envs import fill_columns, spec_layout
from gym2048.native import CallSession, ColumnSession, _Buffers, _InfoBuffers, column_arrays, library


def play(door: Any, num_envs: int, seed: int) -> list[Any]:
    """A seeded random game through a JSON `door`: every result, in order."""
    return play_recording(door, num_envs, seed)[0]


def replay_columns(session: ColumnSession, results: list[Any], seed: int, cards: dict[int, list[int]]) -> None:
    """Plays the JSON `results`' game (`cards`: the cards after result i) through `session`'s columns: after each
    call, every column holds what the JSON result says (the reward as a float64, as JSON numbers are read)."""
    spec = session.spec
    info = [column["name"] for column in spec["info"]]
    expected = column_arrays(spec_layout(spec), session.num_envs, tuple(spec["observation"]["shape"]))
    for index, result in enumerate(results[:-1]):  # the last is render's
        if index == 0:
            session.reset({"seed": seed})
        elif "reward" in result:
            session.actions[:] = cards[index - 1]
            session.step()
        else:
            session.reset({})
        fill_columns(expected, info, result)
        for name, array in expected.items():
            got = session.columns[name]
            assert np.array_equal(got.astype(array.dtype), array), (index, name, got, array)


def play_recording(door: Any, num_envs: int, seed: int) -> tuple[list[Any], dict[int, list[int]]]:
    """`play`, with the cards of each step by the index of the result before it."""
    rng = np.random.default_rng(seed)
    results, cards = [door.call("reset", {"seed": seed})], {}
    for _ in range(120):
        last = results[-1]
        masks = [last["info"]["action_mask"]] if num_envs == 1 else [info["action_mask"] for info in last["info"]]
        chosen = [int(rng.choice(np.flatnonzero(mask))) if any(mask) else 0 for mask in masks]
        if num_envs == 1 and (last.get("terminated") or last.get("truncated")):
            results.append(door.call("reset", {}))
            continue
        cards[len(results) - 1] = chosen
        results.append(door.call("step", {"action": chosen[0]} if num_envs == 1 else {"actions": chosen}))
    results.append(door.call("render", {}))
    return results, cards


@pytest.mark.parametrize("options", [
    {"game": "memorize", "rows": 2, "cols": 3},
    {"game": "memorize", "rows": 1, "cols": 8, "reveal_seen": True, "mismatch_penalty": 0.25, "max_steps": 12},
    {"game": "memorize", "num_envs": 3, "autoreset_mode": "same_step"},
])
def test_both_doors_play_the_same_games(options: dict[str, Any]) -> None:
    engine, columns, server = CallSession(options), ColumnSession(options), G2048(**options)
    try:
        assert engine.call("spec") == columns.spec == server.spec() == server.spec_info
        assert columns.spec["game"] == "memorize"
        n = options.get("num_envs", 1)
        served, cards = play_recording(server, n, 7)
        assert play(engine, n, 7) == served
        assert json.dumps(play(engine, n, 8)) == json.dumps(play(server, n, 8))
        assert served[-1] == {"text": served[-1]["text"]}, "render answers {\"text\": ...}"
        replay_columns(columns, served, 7, cards)
        layout = spec_layout(columns.spec)
        assert [(c["name"], c["width"]) for c in columns.layout] == [(c["name"], c["width"]) for c in layout]
    finally:
        engine.close()
        columns.close()
        server.close()


@pytest.mark.parametrize("options, message", [
    ({"game": "memorize", "rows": 3, "cols": 3}, "rows·cols must be an even number of cards from 2 to 64, got 3x3 = 9"),
    ({"game": "memorize", "reveal_seen": "yes"}, "reveal_seen must be true or false"),
    ({"game": "solitaire"}, "game must be one of \"2048\", \"memorize\""),
])
def test_both_doors_refuse_alike(options: dict[str, Any], message: str) -> None:
    with pytest.raises(G2048Error) as in_process:
        CallSession(options)
    with pytest.raises(G2048Error) as served:
        G2048(**options)
    assert message in str(in_process.value) and message in str(served.value)


def test_the_columns_refuse_what_the_handle_does_not_write() -> None:
    """Too few columns, a NULL fixed column, a card outside the deck: refused by name, nothing changed."""
    lib = library()
    session = ColumnSession({"game": "memorize", "rows": 2, "cols": 2, "mismatch_penalty": 0.5})
    try:
        session.reset({"seed": 3})
        before = session.call("render", {})
        handle, count = session.handle, len(session.layout)
        assert count == 9 and [c["name"] for c in session.layout[:4]] == ["observation", "reward", "terminated",
                                                                          "truncated"]
        cards = np.zeros(1, np.int64)

        def step(addresses: Any, number: int, card: int = 0) -> str:
            cards[0] = card
            assert lib.g2048_step_columns(handle, cards.ctypes.data, 1, addresses, number) != 0
            return str(lib.g2048_last_error().decode())

        assert f"num_columns must be the handle's {count}" in step(session._addresses, count - 1)
        nulls = (ctypes.c_void_p * count)(*session._addresses)
        nulls[2] = None
        assert "columns[2] (terminated) must not be NULL" in step(nulls, count)
        assert "action must be an action from 0 to 3, got 9" in step(session._addresses, count, card=9)
        assert session.call("render", {}) == before
    finally:
        session.close()


def test_2048_columns_are_its_buffers_and_rewards_as_doubles() -> None:
    """2048's handle through the columns API writes what its g2048_buffers path writes; g2048_step gives the
    rewards as doubles too."""
    from gym2048.native import InProcessSession
    lib = library()
    columns = ColumnSession({"rows": 3, "cols": 3, "num_envs": 4, "info": ["action_mask", "score", "max_tile"]})
    buffers = InProcessSession({"rows": 3, "cols": 3, "num_envs": 4, "info": ["action_mask", "score", "max_tile"]})
    try:
        columns.reset({"seed": 5})
        buffers.reset({"seed": 5}, lambda: None)
        rng = np.random.default_rng(1)
        for _ in range(50):
            actions = rng.integers(0, 4, size=4)
            columns.actions[:] = actions
            columns.step()
            buffers.step(actions, lambda: None)
            assert np.array_equal(columns.columns["observation"].reshape(4, -1), buffers.observations.reshape(4, -1))
            assert np.array_equal(columns.columns["reward"], buffers.rewards)
            assert np.array_equal(columns.columns["score"], buffers.columns["scores"])
            assert np.array_equal(columns.columns["action_mask"].view(np.int8), buffers.columns["legal_actions"])
        single = InProcessSession({"rows": 2, "cols": 2})
        try:
            single.reset({"seed": 1}, lambda: None)
            observations, flags = np.zeros(4, np.uint8), np.zeros((2, 1), np.uint8)
            rewards, values, action = np.zeros(1, np.int64), np.zeros(1, np.float64), np.zeros(1, np.uint8)
            for move in range(4):  # one of the four moves is legal on a fresh 2×2 board
                action[0] = move
                out = _Buffers(1, observations.ctypes.data, rewards.ctypes.data, flags[0].ctypes.data,
                               flags[1].ctypes.data, _InfoBuffers(), None, None, _InfoBuffers(), values.ctypes.data)
                if lib.g2048_step(single.handle, action.ctypes.data, 1, ctypes.byref(out)) == 0:
                    break
            assert values[0] == float(rewards[0])
        finally:
            single.close()
    finally:
        columns.close()
        buffers.close()

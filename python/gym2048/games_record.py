"""Games records and evaluation protocols: a player's games as seeds and actions, written and verified by the
engine (docs/RECORDS.md, "Games records"), as `g2048 eval --record` writes them and a ranking takes them.

    import gym2048
    gym2048.protocols()                                   # the published evaluation protocols
    report = gym2048.evaluate(policy, protocol="2048-4x4-v1", record="mine.jsonl")
    verified = gym2048.verify_games(open("mine.jsonl", "rb").read())   # every game replayed by the engine

A record is written by the engine from the seeds and actions alone (every game replayed to write what it gave),
and verified by replaying every game: Python holds no copy of the format.
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

from .client import to_json
from .native import library

_OK = 0


class RecordRefused(ValueError):
    """A games record the engine refuses: malformed, truncated, of other rules or seeds than its protocol's, or
    with a game that does not replay as it says. `reason` is the engine's first difference, e.g. "game 17 (seed
    …): the record says score 2040, the replay gives 2036"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _refused() -> RecordRefused:
    """The engine's last refusal, in its own words (without the protocol's "invalid params: " code prefix)."""
    message = str(json.loads(library().g2048_last_error_json())["message"])
    return RecordRefused(message.removeprefix("invalid params: "))


def protocols() -> list[dict[str, Any]]:
    """The published evaluation protocols: for each its `name` (ending with its version), `summary`, `game`,
    `config` (every option), `seed` (game i's seed is the (i+1)-th SplitMix64 output from it) and `games`."""
    table: list[dict[str, Any]] = json.loads(library().g2048_protocols())
    return table


def protocol(name: str) -> dict[str, Any]:
    """The published protocol `name`; a ValueError listing the names when there is none."""
    for entry in protocols():
        if entry["name"] == name:
            return entry
    raise ValueError(f"unknown protocol {name!r} (the protocols are {', '.join(p['name'] for p in protocols())})")


def action_alphabet() -> str:
    """A games record's action characters, in action order (the engine's, `g2048_action_alphabet`)."""
    return str(library().g2048_action_alphabet().decode())


def actions_of(text: str) -> list[int]:
    """A games record's `actions` text as action numbers; a ValueError for a character outside the alphabet."""
    alphabet = action_alphabet()
    try:
        return [alphabet.index(character) for character in text]
    except ValueError:
        raise ValueError(f"actions hold a character outside {alphabet!r}") from None


def verify_games(data: bytes, protocol: Optional[str] = None) -> dict[str, Any]:
    """Replays every game of a games record through the engine and returns the verification: the record's `game`,
    `protocol`, `config`, `player`, `games`, `steps`, a `summary` (mean, standard_error, ci95, median, min, max,
    reach rates of the milestones the game declares) and `results` (each game's index, seed, score, steps,
    outcome and actions). With `protocol` the record must hold exactly that protocol's games.

    Raises `RecordRefused` with the engine's reason when the record is malformed or truncated, is not the
    protocol's, or a game does not replay as it says."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    lib = library()
    buffer = bytes(data)
    result = ctypes.c_char_p()
    if lib.g2048_games_verify(buffer, len(buffer), None if protocol is None else protocol.encode(),
                              ctypes.byref(result)) != _OK:
        raise _refused()
    verified: dict[str, Any] = json.loads(result.value or b"null")
    return verified


def games_record(game: str, config: dict[str, Any], player: str, seeds: Sequence[int],
                 actions: Sequence[npt.NDArray[Any]], protocol: Optional[str] = None) -> str:
    """The games record of `player`'s games of `game` under `config` (make options; the rest at their defaults):
    game i reset with `seeds[i]`, then its `actions[i]`. The engine replays every game to write what it gave, and
    refuses (`RecordRefused`) one that does not replay to its end, or, with `protocol`, games not the protocol's."""
    if len(seeds) != len(actions) or not seeds:
        raise ValueError(f"seeds and actions must hold one entry a game, at least one: {len(seeds)} and {len(actions)}")
    lengths = np.array([len(a) for a in actions], np.int64)
    flat = np.concatenate([np.asarray(a, np.int64).reshape(-1) for a in actions]) if lengths.sum() else np.zeros(0, np.int64)
    if flat.size and (flat.min() < 0 or flat.max() > 255):
        raise ValueError("actions must be integers from 0 to 255")
    seed_array = np.array([int(s) for s in seeds], np.uint64)
    moves = np.ascontiguousarray(flat, np.uint8)
    text = ctypes.c_char_p()
    lib = library()
    if lib.g2048_games_record(game.encode(), to_json(config).encode(), None if protocol is None else protocol.encode(),
                              player.encode(), len(seeds), seed_array.ctypes.data, lengths.ctypes.data,
                              moves.ctypes.data if moves.size else None, ctypes.byref(text)) != _OK:
        raise _refused()
    return (text.value or b"").decode()


def write_atomically(path: str, text: str) -> None:
    """Writes `text` to `path` through a temporary file beside it, synced and renamed: a kill leaves the old file
    or the new one, never half of one."""
    folder = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)

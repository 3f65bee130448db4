"""The n-tuple learner of `g2048 train`, in this process: made from the command's settings, trained a call at a
time, its weights read, replaced and saved as the command saves them.

    import gym2048
    learner = gym2048.Learner(rows=4, seed=1)              # `g2048 train`'s settings, flags' names with underscores
    report = learner.train(games=1000)                     # {"games": 1000, "moves": …, "seconds": …, "mean_score": …}
    weights = learner.weights()                            # float32, learner.info["weights"] of them
    learner.set_weights(weights)
    learner.save("weights.bin")                            # the file `g2048 train --out` writes
    indices, changes = learner.delta()                     # the weights moved since the last export, sparse

Each `train` call plays the games of one `g2048 train` run, the first from the new network, each next one resuming
the last (`--resume` with the learner's settings; TC's accumulators carry over); with one thread, a seed gives the
weights those runs write.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from .client import G2048Error, to_json
from .handles import EngineHandle
from .native import _raise_last, library

_OK = 0


class Learner(EngineHandle):
    """A network trained in this process by `g2048 train`'s learner. The keywords are the command's settings
    named as its flags with underscores (`tc_alpha` is `--tc-alpha`; `g2048_learner_settings` lists them), checked as
    the command checks its flags: a bad one is a ValueError naming it. Calls take turns; a learner is not copied (make another)."""

    _what = "this learner"
    _destroy = "g2048_learner_destroy"
    _after_fork = "after a fork, make a new one in the child (set_weights carries the weights)"

    def __init__(self, **options: Any) -> None:
        self._handle: Optional[int] = None
        self._claim()
        self._lock = threading.Lock()
        text = to_json(options).encode()
        handle = ctypes.c_int64()
        if library().g2048_learner_make(text, ctypes.byref(handle)) != _OK:
            _raise_last()
        self._handle = handle.value

    def _live(self) -> int:
        self._not_forked()
        if self._handle is None:
            raise G2048Error(None, "the learner is closed")
        return self._handle

    @property
    def info(self) -> dict[str, Any]:
        """Its `weights` (their count), `rows`, `cols`, `patterns`, `games` and `moves` trained so far, `learning`."""
        text = ctypes.c_char_p()
        with self._lock:
            if library().g2048_learner_info(self._live(), ctypes.byref(text)) != _OK:
                _raise_last()
        info: dict[str, Any] = json.loads(text.value or b"null")
        return info

    def train(self, games: int = 0, seconds: float = 0, threads: int = 1) -> dict[str, Any]:
        """Trains `games` more games or for `seconds` (0: no limit; one must be set) on `threads` threads; returns
        the `games`, `moves`, `seconds` and `mean_score` of this call, and `total_games`."""
        report = ctypes.c_char_p()
        with self._lock:
            if library().g2048_learner_train(self._live(), int(games), float(seconds), int(threads),
                                             ctypes.byref(report)) != _OK:
                _raise_last()
        result: dict[str, Any] = json.loads(report.value or b"null")
        return result

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the weights file `g2048 train --out` writes (readable by `g2048 eval` and `TrainedPlayer`)."""
        with self._lock:
            if library().g2048_learner_save(self._live(), os.fsencode(path)) != _OK:
                _raise_last()

    def weights(self) -> npt.NDArray[np.float32]:
        """A copy of the network's weights (not an afterstate table's values)."""
        with self._lock:
            out = np.empty(self._count(), np.float32)
            if library().g2048_learner_weights(self._live(), out.ctypes.data, len(out)) != _OK:
                _raise_last()
        return out

    def set_weights(self, weights: Any) -> None:
        """Replaces the network's weights by `weights` (as many as `info["weights"]`)."""
        array = np.ascontiguousarray(weights, dtype=np.float32)
        if array.ndim != 1:
            raise ValueError(f"weights must be one-dimensional, got shape {array.shape}")
        with self._lock:
            if library().g2048_learner_set_weights(self._live(), array.ctypes.data, len(array)) != _OK:
                _raise_last()

    def delta(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The weights that moved since the last export (`weights`, `set_weights`, `delta` or `apply_delta`; a
        G2048ParamsError before the first): their indices and changes, now minus then. Another learner's
        `apply_delta(indices, changes)` adds them to its weights."""
        count = ctypes.c_int64()
        with self._lock:
            while True:
                # The count first, then the buffers; a thread of another caller may move more weights in between.
                indices, changes = np.empty(count.value, np.int64), np.empty(count.value, np.float32)
                if library().g2048_learner_delta(self._live(), indices.ctypes.data, changes.ctypes.data, len(indices),
                                                 ctypes.byref(count)) != _OK:
                    _raise_last()
                if count.value <= len(indices):
                    return indices[:count.value], changes[:count.value]

    def apply_delta(self, indices: Any, changes: Any) -> None:
        """Adds `changes` (float32) to the weights at `indices` (a delta of another learner); this learner's next
        `delta` leaves them out."""
        self._change(library().g2048_learner_apply_delta, indices, changes, "changes")

    def assign(self, indices: Any, values: Any) -> None:
        """Sets the weights at `indices` to `values` (float32): a driver's combined weights where any worker's moved,
        exactly; this learner's next `delta` leaves them out."""
        self._change(library().g2048_learner_assign, indices, values, "values")

    def _change(self, function: Any, indices: Any, numbers: Any, name: str) -> None:
        at, by = np.ascontiguousarray(indices, dtype=np.int64), np.ascontiguousarray(numbers, dtype=np.float32)
        if at.ndim != 1 or at.shape != by.shape:
            raise ValueError(f"indices and {name} must be one-dimensional and as long, got shapes {at.shape} and "
                             f"{by.shape}")
        with self._lock:
            if function(self._live(), at.ctypes.data, by.ctypes.data, len(at)) != _OK:
                _raise_last()

    def games(self) -> dict[str, Any]:
        """The games trained since the last call: their `games`, `moves` and `seconds`, and the `last` of them (at
        most 1 000, in the order they ended) as `[score, max_tile, moves]`. Another learner's `record` counts them
        as its own: how a driver that combines several learners' deltas keeps their games in the weights it saves."""
        text = ctypes.c_char_p()
        with self._lock:
            if library().g2048_learner_games(self._live(), ctypes.byref(text)) != _OK:
                _raise_last()
        report: dict[str, Any] = json.loads(text.value or b"null")
        return report

    def record(self, report: dict[str, Any], seconds: float = 0) -> None:
        """Counts the games of another learner's `games()` report as this learner's own, and adds `seconds` to its
        training time: a save then writes the games, moves and seconds of all, and on 4x4 from an optimistic start
        the tile to downgrade from that the last 1 000 recorded games suggest, as `g2048 train` does."""
        text = to_json(report).encode()
        with self._lock:
            if library().g2048_learner_record(self._live(), text, float(seconds)) != _OK:
                _raise_last()

    def _count(self) -> int:
        text = ctypes.c_char_p()
        if library().g2048_learner_info(self._live(), ctypes.byref(text)) != _OK:
            _raise_last()
        return int(json.loads(text.value or b"null")["weights"])

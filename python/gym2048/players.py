"""Trained players and evaluation: a `g2048 train` network in this process, and any agent measured as
`g2048 eval` measures one.

    import gym2048
    player = gym2048.TrainedPlayer("weights.bin")
    moves = player.moves(boards)                          # boards: (n, rows, cols) tile exponents, uint8
    report = gym2048.evaluate(player.policy(depth=1), games=1000, seed=1, **player.rules)

`TrainedPlayer.moves(boards, depth)` makes the moves `g2048 eval --weights … --depth depth` makes (the same search,
in the engine), so `evaluate(player.policy(), games, seed)` reports what `g2048 eval --games … --seed … --json`
reports, game for game.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
import time
from typing import Any, Callable, Optional, Union

import numpy as np
import numpy.typing as npt

from .client import ACTION_NAMES, ACTIONS, G2048Error, splitmix64
from .handles import EngineHandle
from .integers import action_array, integer
from .native import _raise_last, library

#: A policy for `evaluate`: (observations, action masks as (n, 4) bool) of the boards still playing → n actions.
Policy = Callable[[npt.NDArray[Any], npt.NDArray[np.bool_]], Any]

_OK = 0


def _check_batch(batch: Any) -> None:
    """Refuses a batch size that is not a positive integer (`evaluate`'s and `evaluate_exact`'s)."""
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")


class _Loaded(EngineHandle):
    """A file loaded into the engine behind a handle (a trained network, a solution): its `info`, the board checks
    and the handle's life, once for every kind. It is not copied (a copy would share the handle): load the file
    again."""

    _kind = "file"  # what it is, for messages: "player", "solution"
    _load = _info = _destroy = ""  # the C functions of its kind
    _after_fork = "after a fork, load it again"

    def __init__(self, path: str) -> None:
        import json
        self._handle: Optional[int] = None
        self._what = f"this {self._kind}"
        self._claim()
        self._lock = threading.Lock()
        lib = library()
        handle = ctypes.c_int64()
        if getattr(lib, self._load)(os.fsencode(path), ctypes.byref(handle)) != _OK:
            _raise_last()
        self._handle = handle.value
        info = ctypes.c_char_p()
        if getattr(lib, self._info)(self._handle, ctypes.byref(info)) != _OK:
            _raise_last()
        self.info: dict[str, Any] = json.loads(info.value or b"null")
        self.path = path
        self.rows, self.cols = int(self.info["rows"]), int(self.info["cols"])
        self.rules: dict[str, Any] = dict(self.info["rules"])

    def _copy_advice(self) -> str:
        return f"load the file again, {type(self).__name__}(path), in the process that needs it"

    def _live(self) -> int:
        self._not_forked()
        if self._handle is None:
            raise G2048Error(None, f"the {self._kind} is closed")
        return self._handle

    def _boards(self, boards: Any) -> npt.NDArray[np.uint8]:
        array = np.asarray(boards)
        if array.dtype.kind not in "iu":
            raise TypeError(f"boards must be integer tile exponents (0 empty, k the tile 2^k), got dtype {array.dtype}")
        if array.ndim == 2:
            array = array[None]
        if array.ndim != 3 or array.shape[1:] != (self.rows, self.cols):
            raise ValueError(f"boards must have shape (n, {self.rows}, {self.cols}) (the {self._kind}'s size), got "
                             f"{array.shape}")
        if array.size and (array.min() < 0 or array.max() > 50):
            raise ValueError(f"boards must hold tile exponents 0..50, got {int(array.min())}..{int(array.max())}")
        return np.ascontiguousarray(array, dtype=np.uint8)

    def _batch(self, call: str, boards: Any, dtype: Any, columns: tuple[int, ...] = (), args: tuple[int, ...] = (),
               locked: bool = False) -> npt.NDArray[Any]:
        """The C function `call`'s answers on a batch of boards, (n, *columns) of `dtype`, with `args` between the
        count and the output; under the lock when `locked` (a player's calls share its search state)."""
        array = self._boards(boards)
        out = np.zeros((len(array), *columns), dtype)
        self._not_forked()  # before the lock, which a thread of the parent may have held at a fork
        with self._lock if locked else contextlib.nullcontext():
            if getattr(library(), call)(self._live(), array.ctypes.data, len(array), *args, out.ctypes.data) != _OK:
                _raise_last()
        return out

    def _as_policy(self, moves: Callable[[npt.NDArray[Any]], npt.NDArray[np.int8]], name: str) -> Policy:
        """`moves` as a policy for `evaluate`: the engine's move on each board asked. A board with legal moves for
        which it has none (-1: for a solution, a board its games never reach) is a ValueError naming the board,
        as `g2048 eval` makes it; never a made-up move."""
        def act(observations: npt.NDArray[Any], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.int8]:
            chosen = moves(observations)
            lost = np.flatnonzero((chosen < 0) & np.asarray(masks).any(axis=1))
            if len(lost):
                board = np.asarray(observations[lost[0]]).tolist()
                raise ValueError(f"the {self._kind} has no move for board {int(lost[0])} of the batch (exponents "
                                 f"{board}), which has legal moves: it is not a board the {self._kind}'s games reach "
                                 f"(play under its rules: **{self._kind}.rules)")
            return chosen
        act.__name__ = name
        return act


class TrainedPlayer(_Loaded):
    """A network written by `g2048 train`, loaded into this process: `values(boards)` and `moves(boards, depth)`
    over batches of boards, as `g2048 eval` computes them. `info` says its size, training and the rules it was
    trained under; `rules` are those rules as environment options (`Gym2048VectorEnv(n, **player.rules)`)."""

    _kind = "player"
    _load, _info, _destroy = "g2048_player_load", "g2048_player_info", "g2048_player_destroy"

    def values(self, boards: Any) -> npt.NDArray[np.float32]:
        """The network's value of each board (n, rows, cols) of tile exponents: an afterstate's expected score to
        come, as trained."""
        return self._batch("g2048_player_values", boards, np.float32, locked=True)

    def moves(self, boards: Any, depth: int = 0) -> npt.NDArray[np.int8]:
        """The move `g2048 eval --depth depth` makes on each board (0 up, 1 right, 2 down, 3 left), -1 where no move
        is legal. Depth 0 is greedy over afterstates; each further layer searches the spawns by expectimax."""
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
            raise TypeError(f"depth must be an integer, got {type(depth).__name__}")
        return self._batch("g2048_player_moves", boards, np.int8, args=(int(depth),), locked=True)

    def policy(self, depth: int = 0) -> Policy:
        """This player as a policy for `evaluate` (on environments with `observation="exponents"`, the default)."""
        return self._as_policy(lambda boards: self.moves(boards, depth),
                               f"ntuple, {'greedy' if depth == 0 else f'expectimax depth {depth}'}")


class Solution(_Loaded):
    """A small board solved by `g2048 solve`, loaded into this process: the optimal value of each action on a batch
    of boards, so an agent's regret and Q-errors are exact, and `evaluate_exact(policy)`, any policy's exact expected
    score. `info` holds `expected_score` (optimal play's, from the starting boards) and `objective`; `rules` are the
    solved rules as environment options."""

    _kind = "solution"
    _load, _info, _destroy = "g2048_solution_load", "g2048_solution_info", "g2048_solution_destroy"

    @property
    def expected_score(self) -> float:
        """The optimal expected score of a game."""
        return float(self.info["expected_score"])

    def action_values(self, boards: Any) -> npt.NDArray[np.float64]:
        """(n, 4): each action's reward plus the optimal expected score to come after it; NaN where the action is
        illegal or the board is not one a game reaches."""
        return self._batch("g2048_solution_action_values", boards, np.float64, columns=(4,))

    def values(self, boards: Any) -> npt.NDArray[np.float64]:
        """The optimal expected score to come from each board: 0 where no move is legal (1 for the win objective on
        a board holding the win tile), NaN where the board is not one a game reaches."""
        return self._batch("g2048_solution_values", boards, np.float64)

    def moves(self, boards: Any) -> npt.NDArray[np.int8]:
        """An optimal move on each board (the first of the best, in action order), -1 where no action has a value
        (none is legal, or none leads to an afterstate a game reaches)."""
        return self._batch("g2048_solution_moves", boards, np.int8)

    def policy(self) -> Policy:
        """Optimal play as a policy for `evaluate` and `evaluate_exact`."""
        return self._as_policy(self.moves, "optimal")

    @property
    def objective(self) -> str:
        """What the values are: "score" (the expected score) or "win" (the chance of reaching the win tile)."""
        return str(self.info["objective"])

    def evaluate_exact(self, policy: Policy, *, symmetric: bool = False, batch: int = 65536, threads: int = 1,
                       name: Optional[str] = None,
                       progress: Union[bool, Callable[[dict[str, int]], None], None] = None) -> dict[str, Any]:
        """The exact expected score of `policy` on the solved board, as `g2048 eval --exact --json` reports it: no
        game is played and there is no sampling noise. Every board the policy reaches is enumerated, an age at a
        time, and `policy(boards, masks)` is asked for its move on each, `batch` boards per call: `boards` are tile
        exponents (n, rows, cols) uint8, `masks` the (n, 4) bool legal moves, and it returns one legal action per
        board (0 up .. 3 left); then the engine values every board by the solver's dynamic programming with the
        policy's moves. The report holds `expected_score`, `optimal_score`, `fraction_of_optimal`, `expected_moves`,
        `suboptimal_share` (of a game's moves, in expectation), `reachable_states` and `suboptimal_state_share`.

        `symmetric=True` asks one board of each class of mirrored and rotated boards (far fewer): only for a policy
        that treats them alike. The report's `player` is `name`, else the policy's `__name__`.

        An evaluation of a 3×3 policy asks about 10^8 boards: `progress` hears how far it has come after each age of
        boards answered, as a dict of `layers` and `total_layers` (ages), `work` and `total_work` (the solution's
        afterstates of the ages done, and of all: most boards are in the middle ages, so `work / total_work` is the
        share done) and `reached` (the afterstates the policy reached); `progress=True` prints that on stderr, as
        `g2048 eval --exact` does.
        """
        import json
        _check_batch(batch)
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 256:
            raise ValueError(f"threads must be an integer from 1 to 256, got {threads!r}")
        if not (progress is None or isinstance(progress, bool) or callable(progress)):
            raise TypeError(f"progress must be a bool or a function of a dict, got {progress!r}")
        report_progress = _print_exact_progress if progress is True else progress or None
        lib = library()
        handle = ctypes.c_int64()
        if lib.g2048_exact_begin(self._live(), int(bool(symmetric)), int(threads), ctypes.byref(handle)) != _OK:
            _raise_last()
        try:
            count = ctypes.c_int64()
            while True:
                if lib.g2048_exact_next(handle.value, ctypes.byref(count)) != _OK:
                    _raise_last()
                if count.value == 0:
                    break
                boards = np.zeros((count.value, self.rows, self.cols), np.uint8)
                masks = np.zeros((count.value, 4), np.uint8)
                if lib.g2048_exact_boards(handle.value, boards.ctypes.data, masks.ctypes.data) != _OK:
                    _raise_last()
                legal = masks.astype(bool)
                moves = np.zeros(count.value, np.int8)
                for first in range(0, count.value, batch):
                    size = min(batch, count.value - first)
                    chosen = np.asarray(policy(boards[first:first + size], legal[first:first + size])).reshape(-1)
                    if chosen.shape[0] != size:
                        raise ValueError(f"the policy returned {chosen.shape[0]} actions for {size} boards")
                    if chosen.dtype.kind not in "iu":
                        raise TypeError(f"the policy's actions must be integers 0..3, got dtype {chosen.dtype}")
                    if size and (chosen.min() < 0 or chosen.max() > 3):
                        raise ValueError(f"the policy's actions must be 0..3, got {int(chosen.min())}..{int(chosen.max())}")
                    moves[first:first + size] = chosen
                if lib.g2048_exact_answer(handle.value, moves.ctypes.data, count.value) != _OK:
                    _raise_last()
                if report_progress is not None:
                    report_progress(_exact_progress(handle.value))
            if progress is True:
                print(file=sys.stderr)
            report = ctypes.c_char_p()
            player = name if name is not None else getattr(policy, "__name__", "policy")
            if lib.g2048_exact_result(handle.value, str(player).encode(), ctypes.byref(report)) != _OK:
                _raise_last()
            result: dict[str, Any] = json.loads(report.value or b"null")
            return result
        finally:
            lib.g2048_exact_destroy(handle.value)


def _exact_progress(handle: int) -> dict[str, int]:
    """`g2048_exact_progress` of the evaluation `handle`, as a dict."""
    fields = ("layers", "total_layers", "work", "total_work", "reached")
    values = [ctypes.c_int64() for _ in fields]
    if library().g2048_exact_progress(handle, *(ctypes.byref(value) for value in values)) != _OK:
        _raise_last()
    return {field: value.value for field, value in zip(fields, values)}


def _print_exact_progress(progress: dict[str, int]) -> None:
    """One line on stderr, rewritten in place: the share of the boards asked, the age, the afterstates reached."""
    share = 100 * progress["work"] / max(1, progress["total_work"])
    print(f"\r{share:5.1f} % of the solution's afterstates, layer {progress['layers']}/{progress['total_layers']}, "
          f"the policy's moves on {progress['reached']} afterstates", end="", file=sys.stderr, flush=True)


def evaluate(policy: Policy, games: Optional[int] = None, seed: Optional[int] = None, *, batch: int = 1024,
             name: Optional[str] = None, protocol: Optional[str] = None, record: Optional[str] = None,
             **options: Any) -> dict[str, Any]:
    """Play `games` seeded games with `policy` and report them as `g2048 eval --json` does (mean, standard error,
    median, max, the rates of reaching each large tile; moves per second and seconds of this run).

    Game i is played from the seed `g2048 eval --seed seed` gives its game i, on `batch` boards at a time (one
    vector environment; finished boards are not asked for moves). `policy(observations, masks)` gets the
    observations (in the `observation` encoding of `options`, exponents by default) and the (n, 4) bool masks of
    the boards still playing and returns their actions. `options` are environment options (the rules: for a
    trained player, `**player.rules`). The report's `player` is `name`, else the policy's `__name__`.

    `games` is 1000 and `seed` 1 unless given. `protocol` (a name from `gym2048.protocols()`) plays a published
    evaluation protocol's games instead: its rules, number of games and seeds (none of which may then be given).
    `record` writes every game, its seed and actions, to that path as a games record (docs/RECORDS.md), written by
    the engine and replaced atomically: what `g2048 eval --record` writes, and what a ranking takes.

    Every action must be one of its board's legal moves (its mask), as `g2048 eval`'s players choose them: an
    illegal one is a ValueError naming the move and the board (under the default `invalid_action` "noop" it would
    change nothing, and the game would never end). Actions are integers exactly (any integer dtype): a float or bool
    array is a TypeError, and `seed` is an integer too.
    """
    from .vector import Gym2048VectorEnv
    from .games_record import games_record, write_atomically
    from .native import games_table
    rules_names = {option["name"] for option in games_table()[0]["options"]}
    if protocol is not None:
        from .games_record import protocol as published
        entry = published(protocol)
        given = [n for n, v in (("games", games), ("seed", seed)) if v is not None] + sorted(set(options) & rules_names)
        if given:
            raise ValueError(f"protocol {protocol} sets the rules, the games and their seeds: drop {', '.join(given)}")
        if entry["game"] != games_table()[0]["name"]:
            raise ValueError(f"protocol {protocol} is a protocol of {entry['game']}; evaluate plays 2048")
        games, seed, options = entry["games"], entry["seed"], {**options, **entry["config"]}
    games = 1000 if games is None else games
    seed = 1 if seed is None else seed
    if record is not None and not os.path.isdir(os.path.dirname(os.path.abspath(record))):
        raise FileNotFoundError(f"record: no folder {os.path.dirname(os.path.abspath(record))!r} to write {record!r} in")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= 10_000_000:
        raise ValueError(f"games must be an integer from 1 to 10000000, got {games!r}")
    _check_batch(batch)
    seeds = splitmix64(integer(seed, "seed"), int(games))
    settings = {"observation": "exponents", **options, "info": ["action_mask", "score", "max_tile", "steps"],
                "autoreset_mode": "next_step"}
    scores = np.zeros(games, np.int64)
    tiles = np.zeros(games, np.int64)
    moves = np.zeros(games, np.int64)
    rows = cols = 0
    played: list[npt.NDArray[np.uint8]] = []  # with `record`, every game's actions
    start = time.perf_counter()
    for first in range(0, games, batch):
        chunk = seeds[first:first + batch]
        envs = Gym2048VectorEnv(len(chunk), **settings)
        try:
            rows, cols = envs.spec_info["rows"], envs.spec_info["cols"]
            observations, infos = envs.reset(seed=chunk)
            # A start with no legal move is a game over at once: score 0, no move, its largest tile.
            tiles[first:first + len(chunk)] = infos["max_tile"]
            playing = envs.action_masks().any(axis=1)
            actions = np.zeros(len(chunk), np.int64)
            index = np.arange(len(chunk))
            taken: list[npt.NDArray[np.uint8]] = []  # each step's actions of every board: a board's first moves[i]
            while playing.any():
                live = index[playing]
                masks = envs.action_masks()[live]
                chosen = np.asarray(policy(observations[live], masks))
                if chosen.size != live.size:
                    raise ValueError(f"the policy returned {chosen.size} actions for {len(live)} boards")
                chosen = action_array(chosen.reshape(-1), len(live), 3, ACTION_NAMES)
                _check_legal(chosen, masks, observations[live])
                actions[:] = 0
                actions[live] = chosen
                if record is not None:
                    taken.append(actions.astype(np.uint8))
                observations, _, terminated, truncated, infos = envs.step(actions)
                ended = playing & (terminated | truncated)
                for column, target in (("score", scores), ("max_tile", tiles), ("steps", moves)):
                    target[first + index[ended]] = infos[column][ended]
                playing &= ~ended
            if record is not None:
                history = np.stack(taken) if taken else np.zeros((0, len(chunk)), np.uint8)
                played.extend(history[:moves[first + lane], lane] for lane in range(len(chunk)))
        finally:
            envs.close()
    seconds = time.perf_counter() - start
    player = name if name is not None else str(getattr(policy, "__name__", "python policy"))
    if record is not None:
        config = {key: value for key, value in settings.items() if key in rules_names}
        write_atomically(record, games_record(games_table()[0]["name"], config, player, seeds, played, protocol))
    return _report(player, rows, cols, scores, tiles, moves, seconds)


def _check_legal(chosen: npt.NDArray[Any], masks: npt.NDArray[np.bool_], boards: npt.NDArray[Any]) -> None:
    """Refuses an action that is not one of its board's legal moves, naming the first such board."""
    illegal = np.flatnonzero(~masks[np.arange(len(chosen)), chosen])
    if len(illegal):
        index = int(illegal[0])
        action = int(chosen[index])
        raise ValueError(f"the policy gave {action} ({ACTIONS[action]}) for board {index} of "
                         f"the batch (observation {np.asarray(boards[index]).tolist()}), where it is not legal: a "
                         "policy must choose one of the legal moves its masks give")


def _report(player: str, rows: int, cols: int, scores: npt.NDArray[np.int64], tiles: npt.NDArray[np.int64],
            moves: npt.NDArray[np.int64], seconds: float) -> dict[str, Any]:
    import json
    lib = library()
    report = ctypes.c_char_p()
    if lib.g2048_evaluation_report(player.encode(), rows, cols, scores.ctypes.data, tiles.ctypes.data,
                                   moves.ctypes.data, len(scores), seconds, ctypes.byref(report)) != _OK:
        _raise_last()
    result: dict[str, Any] = json.loads(report.value or b"null")
    return result

"""`g2048 train`'s learner on several Ray workers: `python -m gym2048.ray_train --workers 4 --seconds 600 --out w.bin`.

    from gym2048.ray_train import ray_train
    report = ray_train(workers=4, games=100_000, out="w.bin", rows=4, seed=1)   # `g2048 train`'s settings as keywords

Every period each worker (a Ray actor holding a `gym2048.Learner`, seeded `seed + its index`) trains `period_games`
games from the combined weights, and returns its delta: the weights it moved and by how much. The driver combines
the deltas into the combined weights by one of two rules (`combine`):

- `mean` (the default): each weight moves by the mean change of the workers that moved it. A weight only one
  worker's games reached takes that worker's whole change; a weight several reached (the early boards every game
  passes through) takes their average, not their sum: each worker's change already carries that weight most of
  the way to where its games put it, and a sum would carry it past by the other workers' share. This is model
  averaging (one-shot averaging of parallel linear TD, and Federated Averaging's local steps) restricted to the
  weights a worker touched, which n-tuple networks need: most weights are touched by one worker or none, and an
  average over all workers would divide their learning by the number of workers.
- `sum`: every delta is added, as parallel TD over shared weights does (each delta a TD update of the shared
  weights, the sum what the updates would have been on one shared copy). It holds while a period is short enough
  that no weight moves far within it; over long periods it overshoots the weights that every worker moves.

The driver then gives the combined weights back to every worker through the object store, sparsely: the values of
the weights that any worker moved (the others are the same everywhere already), which each worker assigns, so
that it holds the combined weights bit for bit as if they had been sent whole; and it saves them (an ordinary
weights file) while the next period trains. A worker that dies is replaced by a new actor holding the combined weights; its period's games
are played again. Ctrl-C saves the combined weights and exits with 130.

Exit codes: 0 done, 1 failed (the reason on stderr), 64 a usage error, 130 interrupted (the weights saved, unless
the run had not begun: a second Ctrl-C before the learner existed).
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import math
import os
import signal
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Optional, Sequence, TextIO

import numpy as np
import numpy.typing as npt

from .learner import Learner
from .native import library

#: How Ray is installed with the package.
INSTALL = "pip install 'gym2048[ray]'"
#: The columns of `g2048 train --metrics`' CSV that a run on Ray knows (it has no tile reach rates).
CSV_HEADER = "games,moves,elapsed_seconds,moves_per_second,mean_score"
#: Games over which the progress line's mean score is taken, as `g2048 train`'s.
WINDOW = 1000
_USAGE_ERROR = 64
_INTERRUPTED = 130
#: The rules that combine the workers' deltas (see the module's documentation), the default first.
COMBINE_RULES = ("mean", "sum")
#: Periods in a row in which every worker died, after which the run stops.
_IDLE_PERIODS = 3
#: The share of the network's weights moved in a period above which the update goes whole (4 bytes a weight)
#: rather than sparse (12: an index and a value).
WHOLE_SHARE = 1 / 3


class _Interrupts:
    """Ctrl-C (SIGINT) during a run as a flag that the driver looks at between Ray's calls, where it raises the
    KeyboardInterrupt that saves the weights. Left to Python, the KeyboardInterrupt is raised wherever the driver
    is, inside one of Ray's own calls too, and the calls that stop the actors after the save can then wait on Ray.
    A second Ctrl-C raises at once. Only on the main thread, the one that signal handlers run on."""

    def __init__(self) -> None:
        self.hit = False
        self._previous: Any = None

    def __enter__(self) -> "_Interrupts":
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exception: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.hit:
            raise KeyboardInterrupt
        self.hit = True

    def check(self) -> None:
        if self.hit:
            raise KeyboardInterrupt

    def result(self, ray: Any, call: Any) -> Any:
        """`ray.get(call)`, looking for a Ctrl-C every quarter of a second while it waits."""
        while not ray.wait([call], timeout=0.25)[0]:
            self.check()
        return ray.get(call)


def _ray() -> Any:
    try:
        import ray
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(f"gym2048.ray_train needs Ray, which is not installed: {INSTALL}",
                                  name="ray") from error
    return ray


class _Worker:
    """One worker's learner, in a Ray actor: made from the run's settings (and the resumed file's bytes), then
    trained a period at a time from the combined weights."""

    def __init__(self, options: dict[str, Any], resumed: Optional[bytes], weights: npt.NDArray[np.float32]) -> None:
        if resumed is None:
            self.learner = Learner(**options)
        else:
            # The file is the driver's: this actor may run on another machine.
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "resumed.bin")
                with open(path, "wb") as file:
                    file.write(resumed)
                self.learner = Learner(**options, resume=path)
        self.learner.set_weights(weights)

    def train(self, games: int, seconds: float) -> tuple[dict[str, Any], npt.NDArray[np.int64], npt.NDArray[np.float32],
                                                         dict[str, Any]]:
        """A period: its report, the delta, and the games behind it (`Learner.games`)."""
        report = self.learner.train(games=games, seconds=seconds, threads=1)
        indices, changes = self.learner.delta()
        return report, indices, changes, self.learner.games()

    def assign(self, update: npt.NDArray[np.float32] | tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]) -> None:
        """The combined weights: whole, or where any worker's moved."""
        if isinstance(update, tuple):
            self.learner.assign(*update)
        else:
            self.learner.set_weights(update)


class _Progress:
    """The run's counters, the mean score of its last games (from the workers' reports), its CSV rows and the
    progress lines."""

    def __init__(self, games: Optional[int], metrics: Optional[str], stream: TextIO) -> None:
        self.games_limit, self.stream = games, stream
        self.games = self.moves = 0
        self.started = time.monotonic()
        self.recent: collections.deque[tuple[int, float]] = collections.deque()  # (games, mean score) per report
        self.csv: Optional[TextIO] = None
        if metrics is not None:
            self.csv = open(metrics, "a", encoding="utf-8")
            if self.csv.tell() == 0:
                self.csv.write(CSV_HEADER + "\n")

    def add(self, report: dict[str, Any]) -> None:
        self.games += int(report["games"])
        self.moves += int(report["moves"])
        if report["games"]:
            self.recent.append((int(report["games"]), float(report["mean_score"])))
        while self.recent and sum(games for games, _ in self.recent) - self.recent[0][0] >= WINDOW:
            self.recent.popleft()

    def mean_score(self) -> float:
        """The mean score of the last WINDOW games, from the reports that hold them (the oldest one in part)."""
        left, total = WINDOW, 0.0
        for games, mean in reversed(self.recent):
            taken = min(games, left)
            total, left = total + taken * mean, left - taken
        return total / (WINDOW - left) if left < WINDOW else 0.0

    def period(self, moves: int, seconds: float, worker_seconds: list[float], worker_moves: list[int],
               sync: tuple[float, int]) -> None:
        """Writes the period's line and CSV row: it played `moves` in `seconds`, each worker its moves in its
        seconds, and the driver combined and sent the weights in `sync` (seconds, bytes in and out)."""
        speed = moves / seconds if seconds > 0 else 0.0
        per_worker = [m / s for m, s in zip(worker_moves, worker_seconds) if s > 0]
        each = sum(per_worker) / len(per_worker) if per_worker else 0.0
        elapsed = time.monotonic() - self.started
        limit = f"/{self.games_limit}" if self.games_limit is not None else ""
        print(f"games {self.games}{limit}  {each:,.0f} moves/s per worker, {speed:,.0f} in all  "
              f"mean score (last {min(self.games, WINDOW)}) {self.mean_score():.1f}  sync {sync[0]:.2f} s, "
              f"{sync[1] / 1e6:.1f} MB  {elapsed:.0f} s",
              file=self.stream, flush=True)
        if self.csv is not None:
            self.csv.write(f"{self.games},{self.moves},{elapsed:.3f},{speed:.1f},{self.mean_score():.2f}\n")
            self.csv.flush()

    def close(self) -> None:
        if self.csv is not None:
            self.csv.close()


def _shares(games: Optional[int], done: int, workers: int, period_games: int) -> list[int]:
    """The games of each worker this period: `period_games`, or the rest of `games` split evenly."""
    if games is None:
        return [period_games] * workers
    left = games - done
    return [min(period_games, left // workers + (1 if index < left % workers else 0)) for index in range(workers)]


class _Combiner:
    """Combines the workers' deltas into the combined weights by a rule, in scratch columns as long as the network
    (how many workers moved each weight, and for `mean` the sum of their changes), so that a period costs a pass over
    the deltas rather than a sort of them; the scratch is zero again after each period."""

    def __init__(self, size: int, rule: str, workers: int) -> None:
        # A period has at most one delta a worker: the smallest integer type that counts them all.
        self.count = np.zeros(size, np.min_scalar_type(workers))
        self.total = np.zeros(size, np.float64) if rule == "mean" else None

    def combine(self, combined: npt.NDArray[np.float32],
                deltas: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]]) -> npt.NDArray[np.int64]:
        """Adds `deltas` (each the distinct indices a worker moved and their changes) to `combined` by the rule, and
        returns the indices any of them moved, in increasing order: where `combined` changed, and all a worker
        needs to hold it."""
        for indices, changes in deltas:
            if self.total is None or len(deltas) == 1:
                combined[indices] += changes  # a delta's indices are distinct
            else:
                self.total[indices] += changes
            self.count[indices] += 1
        moved = np.flatnonzero(self.count)
        if self.total is not None and len(deltas) > 1:
            combined[moved] += (self.total[moved] / self.count[moved]).astype(np.float32)
            self.total[moved] = 0
        self.count[moved] = 0
        return moved


def ray_train(workers: int = 2, games: Optional[int] = None, seconds: Optional[float] = None,
              out: str | os.PathLike[str] = "weights.bin", resume: Optional[str | os.PathLike[str]] = None,
              period_games: int = 1000, combine: str = COMBINE_RULES[0], address: Optional[str] = None,
              metrics: Optional[str] = None,
              on_period: Optional[Callable[[dict[str, Any]], None]] = None, stream: TextIO = sys.stderr,
              **train_options: Any) -> dict[str, Any]:
    """Trains `g2048 train`'s learner on `workers` Ray actors until `games` games in all or `seconds` (one at
    least), combining their changes every `period_games` games each by the `combine` rule (`mean` or `sum`, see the
    module's documentation), and saves the combined weights to `out` after every period (atomically, while the next one trains)
    and at the end. `resume` starts from a weights file (its settings too); `address` is a Ray cluster's
    (default: a local one, started and stopped here; one already initialized is used as it is); `metrics` a CSV
    file the period rows are appended to. `train_options` are `gym2048.Learner`'s (each worker's seed is `seed +
    its index`, seed 1 by default; the afterstate table of small boards is off: `table_share` 0). `on_period` is
    called after each period with its `period`, `games`, `moves` and the `actors` (to test a worker's death).
    Returns the run's `games`, `moves`, `seconds`, `periods`, `worker_restarts` (actors started again after a
    death; not the learner's `restart` of games), last `mean_score`, and the driver's `sync_seconds` and
    `sync_bytes` (combining, and the deltas in and the combined weights out, all periods).
    A Ctrl-C (SIGINT, on the main thread) is taken between Ray's calls: the combined weights are saved, Ray's actors
    stopped, and `Interrupted` (a KeyboardInterrupt) raised. A second one stops the call it comes in at once: the
    same, or, while the learner's tables are still being made, a bare KeyboardInterrupt with nothing saved."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if games is None and seconds is None:
        raise ValueError("set games or seconds (or both): when to stop")
    if games is not None and games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be above 0, got {seconds}")
    if period_games < 1:
        raise ValueError(f"period_games must be at least 1, got {period_games}")
    if combine not in COMBINE_RULES:
        raise ValueError(f"combine must be one of {', '.join(COMBINE_RULES)}, got {combine!r}")
    # From here on a Ctrl-C is a flag looked at between calls: Ray's import and start-up and the learner's tables
    # take seconds, and a KeyboardInterrupt raised inside them would leave no weights saved, or Ray half started.
    with _Interrupts() as interrupts:
        ray = _ray()
        options = {"table_share": 0, **train_options}
        seed = int(options.pop("seed", 1))
        # The driver's learner checks the settings before any actor starts, and saves the combined weights.
        driver = Learner(**options, seed=seed, **({} if resume is None else {"resume": os.fspath(resume)}))
        combined = driver.weights()
        resumed = None
        if resume is not None:
            with open(resume, "rb") as file:
                resumed = file.read()
        started_ray = not ray.is_initialized()
        progress = _Progress(games, metrics, stream)
        actor_class = ray.remote(num_cpus=1, max_restarts=0)(_Worker)
        combiner = _Combiner(len(combined), combine, workers)
        periods = worker_restarts = idle = sync_bytes = 0
        sync_seconds = 0.0
        actors: list[Any] = []
        try:
            interrupts.check()  # taken while the learner's tables were made: Ray need not start
            if started_ray:
                # Locally, room for every actor (one CPU each) even on fewer cores. (Without an address, RAY_ADDRESS
                # names a cluster, whose CPUs are its own.)
                local = address is None and not os.environ.get("RAY_ADDRESS")
                cpus = {"num_cpus": max(workers, os.cpu_count() or 1)} if local else {}
                ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
                         **cpus)
            interrupts.check()  # taken while Ray started
            have = ray.cluster_resources().get("CPU", 0)
            if have < workers:
                # Ray would wait for the CPUs forever: say so instead.
                raise RuntimeError(f"{workers} workers need {workers} CPUs (one each), the Ray cluster has {have:g}")
            blob = ray.put(resumed)
            start_ref = ray.put(combined)

            def make(index: int) -> Any:
                return actor_class.remote({**options, "seed": seed + index}, blob, start_ref)

            actors.extend(make(index) for index in range(workers))
            deadline = None if seconds is None else progress.started + seconds
            saved = True
            while games is None or progress.games < games:
                interrupts.check()
                left = math.inf if deadline is None else deadline - time.monotonic()
                if left <= 0:
                    break
                period_start = time.monotonic()
                shares = _shares(games, progress.games, workers, period_games)
                calls = {index: actors[index].train.remote(share, 0 if deadline is None else left)
                         for index, share in enumerate(shares) if share > 0}
                if not saved:
                    # The last period's weights (the driver's learner holds them), saved while the workers train from them.
                    driver.save(out)
                    saved = True
                moves, worker_seconds, worker_moves, deltas, played = 0, [], [], [], []
                for index, call in calls.items():
                    try:
                        report, indices, changes, games_played = interrupts.result(ray, call)
                    except ray.exceptions.RayActorError:
                        # The new actor starts from the combined weights, whole.
                        start_ref = ray.put(combined)
                        actors[index], worker_restarts = make(index), worker_restarts + 1
                        continue
                    deltas.append((indices, changes))
                    played.append(games_played)
                    progress.add(report)
                    moves += int(report["moves"])
                    worker_seconds.append(float(report["seconds"]))
                    worker_moves.append(int(report["moves"]))
                if not worker_moves:
                    idle += 1
                    if idle == _IDLE_PERIODS:
                        raise RuntimeError(f"no worker finished a period {idle} times in a row: the actors keep dying")
                    continue
                sync_start = time.monotonic()
                moved = combiner.combine(combined, deltas)
                values = combined[moved]
                driver.assign(moved, values)
                # Most of the network moved: the whole of it is smaller than its indices and values.
                whole = len(moved) > WHOLE_SHARE * len(combined)
                update: Any = combined if whole else (moved, values)
                # The driver's learner counts the workers' games as its own (and the period's seconds once): the weights
                # file says how many games made it, and the tile its last games suggest downgrading from.
                for number, games_played in enumerate(played):
                    driver.record(games_played, seconds=time.monotonic() - period_start if number == 0 else 0)
                idle, periods, saved = 0, periods + 1, False
                update_ref = ray.put(update)
                for actor in actors:
                    actor.assign.remote(update_ref)  # not awaited: a worker that died fails its next period
                # Bytes: each delta in (an int64 index and a float32 change a weight), the update out to every worker.
                period_bytes = sum(12 * len(indices) for indices, _ in deltas) + (
                    4 * len(combined) if whole else 12 * len(moved)) * len(actors)
                period_sync = time.monotonic() - sync_start
                sync_seconds, sync_bytes = sync_seconds + period_sync, sync_bytes + period_bytes
                progress.period(moves, time.monotonic() - period_start, worker_seconds, worker_moves,
                                (period_sync, period_bytes))
                if on_period is not None:
                    on_period({"period": periods, "games": progress.games, "moves": progress.moves, "actors": actors})
        except KeyboardInterrupt:
            # The combined weights may be ahead of the driver's learner (interrupted between the two): whole.
            driver.set_weights(combined)
            driver.save(out)
            raise Interrupted(out) from None
        finally:
            progress.close()
            for actor in actors:
                ray.kill(actor)  # their CPUs free at once for a Ray that outlives the run
            if started_ray:
                ray.shutdown()
        driver.save(out)
        return {"games": progress.games, "moves": progress.moves, "seconds": time.monotonic() - progress.started,
                "periods": periods, "worker_restarts": worker_restarts, "mean_score": progress.mean_score(),
                "sync_seconds": sync_seconds, "sync_bytes": sync_bytes}


class Interrupted(KeyboardInterrupt):
    """A Ctrl-C that `ray_train` took after saving the combined weights to `out`. (A bare KeyboardInterrupt, from
    a second Ctrl-C before the run's learner existed, saved nothing.)"""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        super().__init__(os.fspath(out))
        self.out = os.fspath(out)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(_USAGE_ERROR)


#: The learner's settings that are no flag of a run on Ray: `--resume` is the run's own (every worker starts from
#: the driver's file), and the afterstate table is not combined (`table_share` 0).
NOT_FLAGS = ("resume", "table_share", "table_learning")


def _learner_flags() -> list[tuple[str, dict[str, Any]]]:
    """`g2048 train`'s flags that set each worker's learner, from the learner's own list of its settings
    (`g2048_learner_settings`): the flag, and its `add_argument` keywords (the engine checks the values)."""
    flags = []
    for setting in json.loads(library().g2048_learner_settings()):
        if setting["name"] in NOT_FLAGS:
            continue
        kind = setting["kind"]
        keywords: dict[str, Any] = {"type": {"integer": int, "number": float}.get(kind, str),
                                    "metavar": "|".join(setting["choices"]) if kind == "choice" else setting["name"].upper()}
        flags.append(("--" + setting["name"].replace("_", "-"), keywords))
    return flags


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m gym2048.ray_train",
                     description="Train `g2048 train`'s n-tuple learner on several Ray workers, combining their "
                                 "weight changes every period, and write the weights.",
                     epilog="Each worker's seed is --seed plus its index. A dead worker is replaced and its period "
                            "played again; Ctrl-C saves the weights and exits with 130. See docs/LEARNER.md, "
                            f"\"Training on Ray\". Needs Ray: {INSTALL}.")
    parser.add_argument("--workers", type=int, default=2, metavar="N", help="Ray actors that train (default: 2)")
    parser.add_argument("--games", type=int, metavar="N", help="stop after this many games in all")
    parser.add_argument("--seconds", type=float, metavar="S", help="stop after this many seconds")
    parser.add_argument("--out", default="weights.bin", metavar="FILE",
                        help="the weights, saved every period (default: weights.bin)")
    parser.add_argument("--resume", metavar="FILE", help="start from this weights file, with its settings")
    parser.add_argument("--address", metavar="ADDR", help="a Ray cluster's address (default: a local one)")
    parser.add_argument("--period-games", type=int, default=1000, metavar="N",
                        help="games each worker trains between two syncs (default: 1000)")
    parser.add_argument("--combine", choices=COMBINE_RULES, default=COMBINE_RULES[0],
                        help="how the workers' changes combine: mean (each weight by the mean change of the workers "
                             "that moved it) or sum (default: %(default)s)")
    parser.add_argument("--metrics", metavar="FILE", help="append a CSV row every period")
    for flag, keywords in _learner_flags():
        parser.add_argument(flag, help=f"as `g2048 train {flag}`", **keywords)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = vars(_parser().parse_args(argv))
    run = {key: arguments.pop(key) for key in ("workers", "games", "seconds", "out", "resume", "address",
                                                "period_games", "combine", "metrics")}
    options = {key: value for key, value in arguments.items() if value is not None}
    try:
        report = ray_train(**run, **options)
    except ValueError as error:
        print(f"python -m gym2048.ray_train: error: {error}", file=sys.stderr)
        return _USAGE_ERROR
    except Interrupted as interrupted:
        print(f"interrupted: the weights are saved to {interrupted.out}", file=sys.stderr)
        return _INTERRUPTED
    except KeyboardInterrupt:
        print("interrupted before the run began: nothing is saved", file=sys.stderr)
        return _INTERRUPTED
    except Exception as error:  # noqa: BLE001 - the reason on stderr, not a traceback
        print(f"python -m gym2048.ray_train: {error}", file=sys.stderr)
        return 1
    print(f"{report['games']} games, {report['moves']} moves in {report['seconds']:.1f} s, mean score "
          f"{report['mean_score']:.1f}; weights in {run['out']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

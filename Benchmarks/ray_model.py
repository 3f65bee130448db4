"""A model of training on N machines with `gym2048.ray_train`, from figures measured on one: how long each target
score takes with 1 to 64 machines.

    python3 Benchmarks/ray_model.py --curve curve.csv --moves-per-second 3.5e6 --sync-mb 270 --sync-seconds 0.5 \\
        --worth 1:1,2:0.8,4:0.6,8:0.5 [--period-games 5000] [--cores 2] [--link-gbps 10] [--targets 200000,400000]

Inputs, each measured on one machine (docs/LEARNER.md, "Training on many machines", says where each comes from):

- `--curve`: a `g2048 train --metrics` CSV of one machine's run (games, moves, elapsed_seconds, mean_score): the
  moves the learner needs to reach a last-1 000 mean score. Past its end the curve is continued as a straight line
  in the logarithm of moves, fitted to its last half, and the times it gives are marked as extrapolated.
- `--moves-per-second`: one worker's training speed (moves a second on one core).
- `--sync-mb`, `--sync-seconds` and `--period-games`: the megabytes a period of that many games moved with two
  workers (their deltas in, the combined weights out to each) and the driver's seconds for them (combining and
  sending), as `ray_train`'s progress line gives them; the seconds are taken to grow with the bytes.
- `--worth`: what a game is worth with W workers against one (`Benchmarks/ray_efficiency.py`'s column), continued
  past the largest W measured as a power of W through the last two.

Each machine runs one worker a core. A period is the workers' training (`period-games` games each) plus the sync:
the driver's work (combining the deltas and putting the update into the object store), scaled from the two-worker
measurement by the entries it handles, and the bytes through its link (`--link-gbps`): the other machines'
deltas in, and the update out once to each other machine, whose workers read one copy from its object store
(sparse, 12 bytes a weight moved, or whole, 4 bytes a weight, once more than a third of the network moved). The weights any worker moved are the union of the deltas,
counted as independent draws from the network's weights (`--weights`, 67 108 864 for 4×4's default).
"""

from __future__ import annotations

import argparse
import math
import sys


def read_curve(path: str) -> tuple[list[tuple[float, float]], float]:
    """The (moves, mean score) rows of a metrics CSV, and its moves a game."""
    with open(path) as file:
        header = file.readline().strip().split(",")
        games, moves, mean = header.index("games"), header.index("moves"), header.index("mean_score")
        rows = [row for row in (line.strip().split(",") for line in file) if row[0]]
    return [(float(row[moves]), float(row[mean])) for row in rows], float(rows[-1][moves]) / float(rows[-1][games])


def moves_to_reach(curve: list[tuple[float, float]], score: float) -> tuple[float, bool]:
    """The moves after which the curve first reaches `score`, and whether that is past the curve's end."""
    previous = (0.0, 0.0)
    for moves, mean in curve:
        if mean >= score:
            span = mean - previous[1]
            return previous[0] + (moves - previous[0]) * ((score - previous[1]) / span if span > 0 else 1.0), False
        previous = (moves, mean)
    # A straight line in log(moves) through the last half of the curve (least squares).
    tail = curve[min(len(curve) // 2, len(curve) - 2):]
    xs, ys = [math.log(moves) for moves, _ in tail], [mean for _, mean in tail]
    x_mean, y_mean = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - x_mean) ** 2 for x in xs)
    slope = sum((x - x_mean) * (y - y_mean) for x, y in zip(xs, ys)) / spread if spread > 0 else 0.0
    if slope <= 0:
        return math.inf, True
    return math.exp(x_mean + (score - y_mean) / slope), True


def worth_of(worth: dict[int, float], workers: int) -> float:
    """A game's worth with `workers` workers: measured, else a straight line in log worth against log W through the
    two measured counts around it (past the largest, the last two)."""
    if workers in worth:
        return worth[workers]
    known = sorted(worth)
    below = max((w for w in known if w < workers), default=known[0])
    above = min((w for w in known if w > workers), default=None)
    if above is None:
        below, above = known[-2], known[-1]
    slope = (math.log(worth[above]) - math.log(worth[below])) / (math.log(above) - math.log(below))
    return min(1.0, worth[below] * (workers / below) ** slope)


def duration(seconds: float) -> str:
    if math.isinf(seconds):
        return "never"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400 * 2:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--curve", required=True, help="one machine's g2048 train --metrics CSV")
    parser.add_argument("--moves-per-second", type=float, required=True, help="one worker's moves a second")
    parser.add_argument("--sync-mb", type=float, required=True, help="MB a period moved with 2 workers")
    parser.add_argument("--sync-seconds", type=float, required=True, help="the driver's seconds a period, 2 workers")
    parser.add_argument("--worth", required=True, help="W:worth pairs, comma-separated (1:1 first)")
    parser.add_argument("--period-games", type=int, default=5000, help="games a worker a period (default: 5000)")
    parser.add_argument("--moves-per-game", type=float, default=0.0,
                        help="mean moves a game over the run (default: the curve's)")
    parser.add_argument("--cores", type=int, default=2, help="workers a machine (default: 2)")
    parser.add_argument("--link-gbps", type=float, default=10.0, help="the driver's link, Gbit/s (default: 10)")
    parser.add_argument("--weights", type=float, default=67_108_864, help="the network's weights (default: 4x4's)")
    parser.add_argument("--machines", default="1,2,4,8,16,32,64", help="machine counts (default: 1,2,4,...,64)")
    parser.add_argument("--targets", default="200000,400000", help="mean scores (default: 200000,400000)")
    arguments = parser.parse_args()
    curve, curve_moves_per_game = read_curve(arguments.curve)
    worth = {int(w): float(v) for w, v in (pair.split(":") for pair in arguments.worth.split(","))}
    targets = [float(t) for t in arguments.targets.split(",")]
    moves_per_game = arguments.moves_per_game or curve_moves_per_game
    train_seconds = arguments.period_games * moves_per_game / arguments.moves_per_second
    def union(entries: float, workers: int) -> float:
        """The weights any of `workers` deltas of `entries` each moved, as independent draws."""
        return arguments.weights * (1 - (1 - min(1.0, entries / arguments.weights)) ** workers)

    # One worker's delta: the entries whose two deltas in and two unions out make the measured bytes (12 a weight:
    # an int64 index and a float32 value), by bisection.
    low, high = 0.0, arguments.weights
    for _ in range(100):
        entries = (low + high) / 2
        low, high = (entries, high) if 12 * (2 * entries + 2 * union(entries, 2)) < arguments.sync_mb * 1e6 else (low, entries)
    print(f"curve {arguments.curve}: {curve[-1][0] / 1e9:.1f} G moves to a last-1 000 mean of {curve[-1][1]:.0f}; "
          f"{moves_per_game:.0f} moves a game, a period {train_seconds:.1f} s of training; a worker's delta "
          f"{entries / 1e6:.1f} M weights\n")
    print("| machines | workers | sync a period | share of the period | moves a second | a game's worth | "
          + " | ".join(f"to {t:,.0f}" for t in targets) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(targets))
    for machines in (int(m) for m in arguments.machines.split(",")):
        workers = machines * arguments.cores
        # The driver handles every delta and one update; its seconds grow with the entries, scaled from two workers'.
        handled = workers * entries + union(entries, workers)
        work = arguments.sync_seconds * handled / (2 * entries + union(entries, 2))
        # Its link carries every delta in and the update out once to each other machine (a machine's workers read
        # one copy from its object store).
        moved = union(entries, workers)
        update = 4 * arguments.weights if moved > arguments.weights / 3 else 12 * moved  # whole past a third
        link_bytes = 12 * (workers - arguments.cores) * entries + (machines - 1) * update
        sync = work + link_bytes * 8 / (arguments.link_gbps * 1e9)
        share = sync / (train_seconds + sync)
        speed = workers * arguments.moves_per_second * (1 - share)
        game_worth = worth_of(worth, workers)
        cells = []
        for target in targets:
            moves, extrapolated = moves_to_reach(curve, target)
            seconds = moves / game_worth / speed
            cells.append(duration(seconds) + (" (extrapolated)" if extrapolated else ""))
        print(f"| {machines} | {workers} | {sync:.2f} s | {share:.0%} | {speed / 1e6:.1f} M | {game_worth:.2f} | "
              + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

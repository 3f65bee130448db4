"""Sample efficiency of training on Ray: the greedy mean of the weights after a fixed total number of games, with
1, 2, 4 and 8 workers (time-shared on the machine's cores), by each combining rule, beside `g2048 train` on one
thread for the same games. What combining costs per game, free of how fast the machine is.

    .venv/bin/python Benchmarks/ray_efficiency.py [--games 40000] [--period-games 1000] [--workers 1,2,4,8]
                                                  [--rules mean,sum] [--eval-games 1000] [--seed 1] [--keep DIR]

Each run's worth in games is the number of games after which the one-thread run's last-1 000 training mean first
reached the run's final one (from their metrics CSVs), over the run's games: 1.0 is no cost, 0.5 is half its
games wasted. Each run's sync is the driver's mean a period: seconds combining and sending, and the megabytes of
the deltas in and the combined weights out.

Run from the repository root, after `swift build -c release` (g2048 and libgym2048.so) and with Ray installed
(`pip install -e 'python[ray]'`). Every run trains the default network and learning settings of `g2048 train` on
its board; each weights file is evaluated greedily (`g2048 eval --games N --seed 1 --threads 2 --downgrade off`,
plain greedy as the learner's own games are). Prints a Markdown table with the machine, the commit and the date.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from gym2048.ray_train import COMBINE_RULES, ray_train  # noqa: E402
from ray_model import moves_to_reach  # noqa: E402  (this folder's, on the path as the script's own)

G2048 = os.path.join(ROOT, ".build", "release", "g2048")


def greedy(weights: str, games: int) -> dict[str, float]:
    """The greedy mean and its standard error over `games` games."""
    done = subprocess.run([G2048, "eval", "--weights", weights, "--games", str(games), "--seed", "1", "--threads", "2",
                           "--downgrade", "off", "--json"], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    return {"mean": report["mean_score"], "error": report["standard_error"]}


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as file:
            model = next(line.split(":", 1)[1].strip() for line in file if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40_000, help="games in all, each run (default: 40000)")
    parser.add_argument("--period-games", type=int, default=1000, help="games a worker plays a period (default: 1000)")
    parser.add_argument("--workers", default="1,2,4,8", help="worker counts (default: 1,2,4,8)")
    parser.add_argument("--rules", default=",".join(COMBINE_RULES), help="combining rules (default: mean,sum)")
    parser.add_argument("--eval-games", type=int, default=1000, help="greedy games per evaluation (default: 1000)")
    parser.add_argument("--seed", type=int, default=1, help="training seed (default: 1)")
    parser.add_argument("--keep", metavar="DIR", help="keep the weights and metrics CSVs in DIR (default: none kept)")
    arguments = parser.parse_args()
    workers = [int(count) for count in arguments.workers.split(",")]
    rules = arguments.rules.split(",")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    print(f"{arguments.games} games in all, period {arguments.period_games} games a worker, greedy over "
          f"{arguments.eval_games} games; {machine()}; {commit.strip()}, {datetime.date.today()}")
    print("\n| run | greedy mean ± s.e. | training mean, last 1 000 | worth in games | sync a period | seconds |\n"
          "|---|---|---|---|---|---|")
    import ray
    # One local Ray for every run (each run started its own before: 40 s of start-up a run), with a CPU for
    # each of the most workers, time-shared on the machine's cores.
    ray.init(num_cpus=max(workers), include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    with tempfile.TemporaryDirectory() as scratch:
        folder = arguments.keep or scratch
        os.makedirs(folder, exist_ok=True)
        out, csv = os.path.join(folder, "single.bin"), os.path.join(folder, "single.csv")
        started = time.monotonic()
        subprocess.run([G2048, "train", "--games", str(arguments.games), "--seed", str(arguments.seed), "--out", out,
                        "--metrics", csv], check=True, capture_output=True, env={**os.environ, "G2048_PROGRESS": "off"})
        curve = means(csv)
        result = greedy(out, arguments.eval_games)
        print(f"| `g2048 train`, one thread | {result['mean']:.0f} ± {result['error']:.0f} | {curve[-1][1]:.0f} | 1 | "
              f"none | {time.monotonic() - started:.0f} |", flush=True)
        for rule in rules:
            for count in workers:
                out, csv = os.path.join(folder, f"{rule}-{count}.bin"), os.path.join(folder, f"{rule}-{count}.csv")
                started = time.monotonic()
                with open(os.devnull, "w") as quiet:
                    report = ray_train(workers=count, games=arguments.games, period_games=arguments.period_games,
                                       combine=rule, out=out, metrics=csv, seed=arguments.seed, stream=quiet)
                result = greedy(out, arguments.eval_games)
                final = means(csv)[-1][1]
                periods = max(report["periods"], 1)
                print(f"| {count} worker{'s' if count > 1 else ''}, {rule} | {result['mean']:.0f} ± "
                      f"{result['error']:.0f} | {final:.0f} | {worth(curve, final) / report['games']:.2f} | "
                      f"{report['sync_seconds'] / periods:.2f} s, {report['sync_bytes'] / periods / 1e6:.0f} MB | "
                      f"{time.monotonic() - started:.0f} |", flush=True)
    return 0


def means(csv: str) -> list[tuple[int, float]]:
    """A metrics CSV's (games, last-1 000 mean score) rows."""
    with open(csv) as file:
        header = file.readline().strip().split(",")
        games, mean = header.index("games"), header.index("mean_score")
        return [(int(row[games]), float(row[mean])) for row in (line.strip().split(",") for line in file) if row[0]]


def worth(curve: list[tuple[int, float]], score: float) -> float:
    """The games after which `curve` first reached `score` (interpolated between its rows; its last games if never)."""
    games, beyond = moves_to_reach([(float(games), mean) for games, mean in curve], score)
    return float(curve[-1][0]) if beyond else games


if __name__ == "__main__":
    sys.exit(main())

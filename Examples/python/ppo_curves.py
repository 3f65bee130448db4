"""MaskablePPO's learning curves on 4x4 and 3x3, several seeds each: a CSV, one SVG a board, and a summary.

    .venv-rl/bin/python Examples/python/ppo_curves.py --solution s3x3.bin            # 3 seeds x 2 boards
    .venv-rl/bin/python Examples/python/ppo_curves.py --boards 3x3 --seeds 1 --timesteps 20000   # a quick look

Each run is the shipped example (`python -m gym2048.examples.maskable_ppo`, its recipe) with `--seed`, a
`--timesteps` budget, `--csv` (the mean score of the training episodes ended in each rollout) and `--json`; with
`--solution` (`g2048 solve --rows 3 --cols 3 --out s3x3.bin`) each run of the solved board also reports its greedy
policy's exact fraction of optimal play. Runs go `--jobs` at a time (the default 1 leaves the machine's other
core to the engine); a run whose JSON is already in `--runs` is not run again, so a stopped measurement resumes.

The curves are binned: `--bins` equal spans of env steps, a seed's point in a span being the mean score of all the
training episodes that ended there. For each board the SVG draws the mean over seeds (a line) and the lowest and
highest seed (a band), the random legal agent's mean score (measured here over `--random-episodes` episodes) and,
with a solution, optimal play's; `--out`/ppo-curves.csv holds every point and the summary goes to stdout as
Markdown: the greedy policy's mean score over the example's evaluation episodes (mean and spread over seeds), the
steps after which every seed's curve stays 10 % above the random legal agent, and the exact fraction of optimal
play.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from typing import Any, Optional

import numpy as np

#: Each board's default --timesteps, and what its runs change in the example's recipe: on 3x3 a smaller network,
#: since the exact evaluation asks it the move on every board the policy reaches (about 10^8 of them).
BOARDS: dict[str, tuple[int, list[str]]] = {"4x4": (600_000, []), "3x3": (400_000, ["--net", "64,64"])}
WIDTH, HEIGHT = 880.0, 540.0
LEFT, RIGHT, TOP, BOTTOM = 90.0, 800.0, 60.0, 420.0  # the plot area, as in `g2048 train --plot`
BLUE = "#1f77b4"
#: PPO "passes" the random legal agent once every seed's curve stays this many times above the agent's mean: the
#: first rollouts hover around it, above or below by chance.
CLEAR_MARGIN = 1.1


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--boards", default=",".join(BOARDS), help="boards to run, such as 4x4,3x3 (default "
                        "4x4,3x3)")
    parser.add_argument("--seeds", default="1,2,3", help="seeds of the runs (default 1,2,3)")
    parser.add_argument("--timesteps", type=int, default=None, help="env steps of each run (default: "
                        + ", ".join(f"{steps:,} on {board}" for board, (steps, _) in BOARDS.items()) + ")")
    parser.add_argument("--solution", default=None, help="a `g2048 solve` file (3x3): the exact fraction of optimal "
                        "play of each 3x3 run")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1)")
    parser.add_argument("--bins", type=int, default=40, help="spans of env steps a curve is averaged over "
                        "(default 40)")
    parser.add_argument("--random-episodes", type=int, default=10_000, help="episodes of the random legal agent "
                        "(default 10000)")
    parser.add_argument("--runs", default="ppo-runs", help="folder of each run's CSV, JSON and log (default "
                        "ppo-runs)")
    parser.add_argument("--out", default="docs", help="folder of ppo-curves.csv and ppo-RxC.svg (default docs)")
    parser.add_argument("--label", default=None, help="the figures' note of version, date and machine (default: "
                        "the git commit, today and the CPU model)")
    args = parser.parse_args()
    args.boards = args.boards.split(",")
    for board in args.boards:
        if board.count("x") != 1 or not all(part.isdigit() for part in board.split("x")):
            parser.error(f"--boards takes boards such as 4x4,3x3, got {board!r}")
    args.seeds = [int(seed) for seed in args.seeds.split(",")]
    if args.jobs < 1 or args.bins < 2 or args.random_episodes < 1:
        parser.error("--jobs and --random-episodes must be positive, --bins at least 2")
    args.solved = None  # the board of --solution, whose runs get it
    if args.solution:
        import gym2048

        solution = gym2048.Solution(args.solution)
        args.solved = f"{solution.rows}x{solution.cols}"
        solution.close()
        if args.solved not in args.boards:
            parser.error(f"--solution solves {args.solved}, which is not one of --boards {','.join(args.boards)}")
    return args


def run_name(board: str, seed: int) -> str:
    return f"{board}-seed{seed}"


def command(args: argparse.Namespace, board: str, seed: int) -> list[str]:
    """The example's command line for one run (its output files in --runs)."""
    rows, cols = board.split("x")
    default, recipe = BOARDS.get(board, BOARDS["4x4"])
    steps = args.timesteps if args.timesteps is not None else default
    line = [sys.executable, "-m", "gym2048.examples.maskable_ppo", "--rows", rows, "--cols", cols, "--seed",
            str(seed), "--timesteps", str(steps), *recipe, "--json", "--csv",
            os.path.join(args.runs, run_name(board, seed) + ".csv")]
    if board == args.solved:
        line += ["--solution", args.solution]
    return line


def run_all(args: argparse.Namespace) -> None:
    """Runs every board and seed whose JSON is missing, --jobs at a time; stops at the first failure."""
    os.makedirs(args.runs, exist_ok=True)
    waiting = [(board, seed) for board in args.boards for seed in args.seeds
               if not os.path.exists(os.path.join(args.runs, run_name(board, seed) + ".json"))]
    running: dict[str, subprocess.Popen[bytes]] = {}
    while waiting or running:
        while waiting and len(running) < args.jobs:
            board, seed = waiting.pop(0)
            name, line = run_name(board, seed), command(args, board, seed)
            print(f"[curves] {name}: {' '.join(line[1:])}", file=sys.stderr, flush=True)
            with open(os.path.join(args.runs, name + ".json.part"), "wb") as out, \
                    open(os.path.join(args.runs, name + ".log"), "wb") as err:
                running[name] = subprocess.Popen(line, stdout=out, stderr=err)
        time.sleep(1)
        for name, process in list(running.items()):
            code = process.poll()
            if code is None:
                continue
            del running[name]
            if code != 0:
                raise SystemExit(f"error: run {name} failed ({code}): see {os.path.join(args.runs, name + '.log')}")
            os.replace(os.path.join(args.runs, name + ".json.part"), os.path.join(args.runs, name + ".json"))
            print(f"[curves] {name} done", file=sys.stderr, flush=True)


def binned(path: str, edges: Any) -> Any:
    """One seed's curve: the mean score of the training episodes that ended in each span of steps (NaN if none)."""
    with open(path) as file:
        rows = list(csv.DictReader(file))
    steps = np.array([int(row["steps"]) for row in rows])
    episodes = np.diff(np.array([0] + [int(row["episodes"]) for row in rows]))
    totals = np.array([float(row["mean_score"]) for row in rows]) * episodes
    spans = np.clip(np.searchsorted(edges, steps, side="left") - 1, 0, len(edges) - 2)
    count = np.bincount(spans, episodes, len(edges) - 1)
    score = np.bincount(spans, totals, len(edges) - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, score / np.maximum(count, 1), np.nan)


def random_legal(board: str, episodes: int) -> float:
    """The random legal agent's mean score over `episodes` games (`g2048 eval --seed 1`'s), by `gym2048.evaluate`."""
    import gym2048

    rows, cols = (int(part) for part in board.split("x"))
    rng = np.random.default_rng(1)

    def random_move(boards: Any, masks: Any) -> Any:
        return np.argmax(rng.random(masks.shape) * masks, axis=1)

    return float(gym2048.evaluate(random_move, episodes, 1, rows=rows, cols=cols)["mean_score"])


def nice_step(span: float) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving 4 to 10 ticks over `span`."""
    base = 10 ** np.floor(np.log10(span / 4))
    return float(next(base * m for m in (1, 2, 5, 10) if span / (base * m) <= 10))


def label(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    return f"{value / 1e3:g}k" if value >= 1e3 else f"{value:g}"


def svg(board: str, centres: Any, mean: Any, low: Any, high: Any, seeds: int, random_score: float,
        optimal: Optional[float], fractions: list[float], note: str, command_line: str) -> str:
    """The chart of one board, in the look of `g2048 train --plot`; `fractions` are the exact fractions of optimal
    play of the final greedy policies."""
    ok = ~np.isnan(mean)
    x_max = float(centres[-1] + (centres[1] - centres[0]) / 2)
    y_top = max(float(np.nanmax(high)), random_score, optimal or 0) * 1.08
    x_step, y_step = nice_step(x_max), nice_step(y_top)
    y_max = float(np.ceil(y_top / y_step) * y_step)

    def px(x: float) -> float:
        return LEFT + (RIGHT - LEFT) * x / x_max

    def py(y: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * y / y_max

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH:g}" height="{HEIGHT:g}" '
             f'viewBox="0 0 {WIDTH:g} {HEIGHT:g}" font-family="sans-serif" font-size="12">',
             f'<rect x="0" y="0" width="{WIDTH:g}" height="{HEIGHT:g}" fill="white"/>',
             f'<text x="{WIDTH / 2:.1f}" y="32" font-size="18" text-anchor="middle">MaskablePPO on {board}, '
             f'{seeds} seeds: training episodes\' mean score</text>', '<g stroke="#e5e5e5" stroke-width="1">']
    xs = np.arange(0, x_max + 1e-9, x_step)
    ys = np.arange(0, y_max + 1e-9, y_step)
    parts += [f'<line x1="{LEFT:.1f}" y1="{py(y):.1f}" x2="{RIGHT:.1f}" y2="{py(y):.1f}"/>' for y in ys]
    parts += [f'<line x1="{px(x):.1f}" y1="{TOP:.1f}" x2="{px(x):.1f}" y2="{BOTTOM:.1f}"/>' for x in xs]
    parts += ['</g>', f'<rect x="{LEFT:.1f}" y="{TOP:.1f}" width="{RIGHT - LEFT:.1f}" height="{BOTTOM - TOP:.1f}" '
              'fill="none" stroke="#333333" stroke-width="1"/>', '<g text-anchor="middle">']
    parts += [f'<text x="{px(x):.1f}" y="{BOTTOM + 18:.1f}">{label(x)}</text>' for x in xs]
    parts += ['</g>', '<g text-anchor="end">']
    parts += [f'<text x="{LEFT - 6:.1f}" y="{py(y) + 4:.1f}">{label(y)}</text>' for y in ys]
    parts += ['</g>', f'<text x="{(LEFT + RIGHT) / 2:.1f}" y="{BOTTOM + 42:.1f}" text-anchor="middle">env steps'
              '</text>', f'<text x="24" y="{(TOP + BOTTOM) / 2:.1f}" text-anchor="middle" '
              f'transform="rotate(-90 24 {(TOP + BOTTOM) / 2:.1f})">mean score</text>']
    band = [(px(x), py(y)) for x, y in zip(centres[ok], high[ok])] + \
        [(px(x), py(y)) for x, y in zip(centres[ok][::-1], low[ok][::-1])]
    parts.append(f'<polygon class="spread" fill="{BLUE}" fill-opacity="0.2" stroke="none" points="'
                 + " ".join(f"{x:.1f},{y:.1f}" for x, y in band) + '"/>')
    parts.append(f'<polyline class="mean" fill="none" stroke="{BLUE}" stroke-width="2.5" points="'
                 + " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(centres[ok], mean[ok])) + '"/>')
    references = [(random_score, f"random legal agent: {random_score:,.0f}", "#d62728")]
    if optimal is not None:
        share = (f"; the final greedy policies play {100 * min(fractions):.1f}–{100 * max(fractions):.1f} % of it "
                 "(exact)") if fractions else ""
        references.append((optimal, f"optimal play: {optimal:,.1f}{share}", "#222222"))
    for score, text, colour in references:
        parts.append(f'<line class="reference" x1="{LEFT:.1f}" y1="{py(score):.1f}" x2="{RIGHT:.1f}" '
                     f'y2="{py(score):.1f}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="8 3 2 3"/>')
        parts.append(f'<text x="{RIGHT - 6:.1f}" y="{py(score) - 6:.1f}" text-anchor="end" fill="{colour}">'
                     f'{text}</text>')
    parts += ['<g>', f'<line x1="90.0" y1="490.0" x2="114.0" y2="490.0" stroke="{BLUE}" stroke-width="2.5"/>',
              '<text x="120.0" y="494.0">mean over seeds</text>',
              f'<rect x="242.0" y="484.0" width="24.0" height="12.0" fill="{BLUE}" fill-opacity="0.2"/>',
              '<text x="272.0" y="494.0">lowest to highest seed</text>', '</g>',
              f'<text x="90.0" y="516.0" fill="#555555">{escape(note)}</text>',
              f'<text x="90.0" y="532.0" fill="#555555" font-size="11">{escape(command_line)}</text>', '</svg>']
    return "\n".join(parts) + "\n"


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def default_label() -> str:
    """The versions that made the runs (the package's, else its `g2048`'s; torch's; sb3-contrib's), today's date and
    the machine."""
    from importlib import metadata

    import gym2048

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "unknown"

    ours = version("gym2048")
    if ours == "unknown":  # run from a clone: the engine's version
        ours = subprocess.run([gym2048.find_binary(), "--version"], capture_output=True, text=True).stdout.strip()
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as file:
            model = next(line.split(":", 1)[1].strip() for line in file if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{ours}, torch {version('torch')}, sb3-contrib {version('sb3-contrib')}; {datetime.date.today()}, "
            f"{os.cpu_count()}-core {model}")


def main() -> int:
    args = parse_args()
    run_all(args)
    note = args.label or default_label()
    os.makedirs(args.out, exist_ok=True)
    table = ["| board | env steps | seeds | greedy mean score (mean, lowest–highest seed) | random legal | "
             f"every seed {100 * (CLEAR_MARGIN - 1):.0f} % above random from | exact fraction of optimal play |",
             "|---|---|---|---|---|---|---|"]
    with open(os.path.join(args.out, "ppo-curves.csv"), "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["board", "steps_from", "steps_to", "mean", "lowest", "highest"]
                        + [f"seed{seed}" for seed in args.seeds])
        for board in args.boards:
            results = []
            for seed in args.seeds:
                with open(os.path.join(args.runs, run_name(board, seed) + ".json")) as result:
                    results.append(json.load(result))
            steps = max(result["timesteps"] for result in results)
            edges = np.linspace(0, steps, args.bins + 1)
            curves = np.array([binned(os.path.join(args.runs, run_name(board, seed) + ".csv"), edges)
                               for seed in args.seeds])
            with np.errstate(invalid="ignore"):
                mean, low, high = (np.nanmean(curves, 0), np.nanmin(curves, 0), np.nanmax(curves, 0))
            for i in range(args.bins):
                writer.writerow([board, int(edges[i]), int(edges[i + 1])]
                                + [f"{value:.1f}" for value in (mean[i], low[i], high[i], *curves[:, i])])
            random_score = random_legal(board, args.random_episodes)
            exact = [r["exact"] for r in results if "exact" in r]
            optimal = exact[0]["optimal_score"] if exact else None
            line = " ".join(["python", "Examples/python/ppo_curves.py", "--boards", ",".join(args.boards), "--seeds",
                             ",".join(map(str, args.seeds))]
                            + ([f"--timesteps {args.timesteps}"] if args.timesteps is not None else [])
                            + ([f"--jobs {args.jobs}"] if args.jobs != 1 else [])
                            + ([f"--solution {os.path.basename(args.solution)}"] if args.solution else []))
            centres = (edges[:-1] + edges[1:]) / 2
            fractions = [e["fraction_of_optimal"] for e in exact]
            with open(os.path.join(args.out, f"ppo-{board}.svg"), "w") as image:
                image.write(svg(board, centres, mean, low, high, len(args.seeds), random_score, optimal, fractions,
                                note, line))
            greedy = np.array([r["maskable_ppo"]["mean_score"] for r in results])
            below = np.flatnonzero(~(low > CLEAR_MARGIN * random_score))
            passes = ("never" if len(below) == args.bins else f"{int(edges[below[-1] + 1]):,}" if len(below)
                      else f"the first span (≤ {int(edges[1]):,})")
            fraction = (f"{100 * np.mean(fractions):.1f} % (" + ", ".join(f"{100 * f:.1f}" for f in fractions) + ")"
                        if exact else "-")
            table.append(f"| {board} | {steps:,} | {len(results)} | {greedy.mean():,.0f} ({greedy.min():,.0f}–"
                         f"{greedy.max():,.0f}) | {random_score:,.0f} | {passes} | {fraction} |")
            seconds = [r["train_seconds"] for r in results]
            print(f"[curves] {board}: training took {min(seconds):,.0f}–{max(seconds):,.0f} s a run", file=sys.stderr)
    print("\n".join(table))
    print(f"\n{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

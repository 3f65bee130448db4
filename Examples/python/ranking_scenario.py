"""The ranking end to end, as a user runs it: players trained, solved and built in, evaluated under the published
protocols, submitted to a running service, ranked; then forged records of every kind, each refused.

    .venv/bin/python Examples/python/ranking_scenario.py                 # a minute of training a board
    .venv/bin/python Examples/python/ranking_scenario.py --seconds 15    # quicker, for a look

On 3x3 (protocol 2048-3x3-v1) it ranks the random and greedy players, an n-tuple player trained for --seconds with
its afterstate table learned from games (`g2048 train --table-learning games`), and the optimal player of the
exact solution (`g2048 solve`), which the service also loads to measure each player's fraction of optimal play; on
4x4 (2048-4x4-v1) the same without the optimal player. Every record is written by `g2048 eval --protocol NAME
--record FILE`, and submitted through the service's HTTP endpoint. Then five forged records (a score edited, an
action changed, another seed, other rules, a duplicate) are submitted: each must be refused with its reason and
leave the tables unchanged. The tables go to stdout as Markdown, with the machine, the date and the command; the
exit status is 1 when an expectation fails (the order optimal, trained, greedy, random; optimal play at 100 %).
The README's test command runs it with --seconds 15 (python/tests/test_rank_scenario.py).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Any, Optional

from gym2048 import find_binary
from gym2048.rank import RankRefused, show, submit
from gym2048.rank.server import make_server

#: The players of each protocol, best first: what the ranking must show.
EXPECTED = {"2048-3x3-v1": ["optimal", "trained", "greedy", "random"], "2048-4x4-v1": ["trained", "greedy", "random"]}


def g2048(*arguments: str) -> str:
    """Runs the engine's command line; its stdout (stderr is shown on failure)."""
    done = subprocess.run([find_binary(), *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"g2048 {' '.join(arguments)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def records(folder: str, seconds: int, log: Any) -> dict[str, dict[str, str]]:
    """Every player's games record, by protocol and player: trains, solves and evaluates."""
    files: dict[str, dict[str, str]] = {}
    solution = os.path.join(folder, "s3x3.bin")
    print("solving 3x3 …", file=log, flush=True)
    g2048("solve", "--rows", "3", "--cols", "3", "--out", solution)
    for protocol, rows in (("2048-3x3-v1", "3"), ("2048-4x4-v1", "4")):
        weights = os.path.join(folder, f"w{rows}.bin")
        print(f"training {rows}x{rows} for {seconds} s …", file=log, flush=True)
        table = ["--table-learning", "games"] if rows == "3" else []
        g2048("train", "--rows", rows, "--seconds", str(seconds), *table, "--out", weights)
        players = {"trained": ["--weights", weights], "greedy": ["--agent", "greedy"], "random": ["--agent", "random"]}
        if rows == "3":
            players["optimal"] = ["--agent", "optimal", "--solution", solution]
        files[protocol] = {}
        for name, flags in players.items():
            path = os.path.join(folder, f"{protocol}-{name}.jsonl")
            g2048("eval", *flags, "--protocol", protocol, "--record", path)
            files[protocol][name] = path
    files["solution"] = {"2048-3x3-v1": solution}
    return files


def forgeries(folder: str, original: str, other_rules: str) -> dict[str, str]:
    """Forged copies of `original` (a 3x3 record): its first game's score edited, an action changed, its seed
    changed; `other_rules` is a record of the same protocol name played under other rules."""
    with open(original, encoding="utf-8") as file:
        header, first, *rest = file.read().splitlines()
    game = json.loads(first)
    # An action in the middle turned by a quarter: the rest of the game no longer plays as recorded.
    actions, middle = game["actions"], len(game["actions"]) // 2
    changed = actions[:middle] + "1230"["0123".index(actions[middle])] + actions[middle + 1:]
    forged = {
        "score edited": json.dumps({**game, "score": game["score"] + 4}, separators=(",", ":")),
        "action changed": first.replace(f'"actions":"{actions}"', f'"actions":"{changed}"'),
        "another seed": first.replace(f'"seed":{game["seed"]}', f'"seed":{game["seed"] + 1}'),
    }
    paths = {}
    for name, line in forged.items():
        path = os.path.join(folder, name.replace(" ", "-") + ".jsonl")
        with open(path, "w", encoding="utf-8") as file:
            file.write("\n".join([header, line, *rest]) + "\n")
        paths[name] = path
    paths["other rules"] = other_rules
    paths["a duplicate"] = original
    return paths


def run(seconds: int, folder: str, log: Any = sys.stderr) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str], list[str]]:
    """The scenario in `folder`: the tables by protocol, the refusals by forgery, and the failed expectations."""
    files = records(folder, seconds, log)
    server = make_server(os.path.join(folder, "ranking.sqlite"), port=0, solutions=files.pop("solution"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    failures: list[str] = []
    try:
        for protocol, players in files.items():
            for name, path in players.items():
                submit(url, "scenario", name, path, description=f"the {name} player")
        tables = {protocol: show(url, protocol=protocol) for protocol in files}
        # Other rules under the protocol's name: a 3x3 record whose spawns are all 2s.
        other = os.path.join(folder, "other-rules.jsonl")
        g2048("eval", "--agent", "greedy", "--rows", "3", "--games", "1000", "--seed", "2048",
              "--spawn-four-probability", "0", "--record", other)
        with open(other, encoding="utf-8") as file:
            text = file.read().replace('"protocol":null', '"protocol":"2048-3x3-v1"', 1)
        with open(other, "w", encoding="utf-8") as file:
            file.write(text)
        refusals = {}
        for name, path in forgeries(folder, files["2048-3x3-v1"]["greedy"], other).items():
            try:
                submit(url, "forger", name, path)
                failures.append(f"the forgery '{name}' was taken")
            except RankRefused as refusal:
                refusals[name] = refusal.reason
        for protocol in files:
            if show(url, protocol=protocol) != tables[protocol]:
                failures.append(f"the {protocol} table changed after the forgeries")
    finally:
        server.shutdown()
        server.server_close()
        server.ranking.close()
    for protocol, expected in EXPECTED.items():
        order = [row["agent"] for row in tables[protocol]]
        if order != expected:
            failures.append(f"{protocol}: ranked {order}, expected {expected}")
    optimal = [row for row in tables["2048-3x3-v1"] if row["agent"] == "optimal"]
    if not optimal or optimal[0].get("optimal_fraction") != 1.0:
        failures.append(f"the optimal player's fraction of optimal play is {optimal[0].get('optimal_fraction') if optimal else None}")
    return tables, refusals, failures


def markdown(tables: dict[str, list[dict[str, Any]]], refusals: dict[str, str], seconds: int) -> str:
    lines = [f"Measured {datetime.date.today()} on {platform.node() or 'this machine'} "
             f"({_cpu()}, {os.cpu_count()} CPUs): `Examples/python/ranking_scenario.py --seconds {seconds}`.", ""]
    for protocol, rows in tables.items():
        lines += [f"**{protocol}**", "", "| rank | agent | mean ± 95 % | median | 2048 | % of optimal |", "|---|---|---|---|---|---|"]
        for index, row in enumerate(rows, 1):
            half = (row["ci_high"] - row["ci_low"]) / 2
            fraction = row.get("optimal_fraction")
            reach = json.loads(row["reach"]) if isinstance(row.get("reach"), str) else row.get("reach", {})
            lines.append(f"| {index} | {row['agent']} | {row['mean']:.1f} ± {half:.1f} | {row['median']:.1f} | "
                         f"{100 * float(reach.get('2048', 0)):.1f} % | "
                         f"{'—' if fraction is None else f'{100 * fraction:.2f} %'} |")
        lines.append("")
    lines += ["| forged record | refused because |", "|---|---|"]
    lines += [f"| {name} | {reason} |" for name, reason in refusals.items()]
    return "\n".join(lines)


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as file:
            for line in file:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=60, help="training seconds a board (default 60)")
    parser.add_argument("--keep", metavar="FOLDER", help="work in FOLDER and keep it (default: a temporary folder)")
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.seconds <= 86_400:
        parser.error(f"--seconds must be 1 to 86400, got {arguments.seconds}")
    folder = arguments.keep or tempfile.mkdtemp(prefix="ranking-scenario-")
    os.makedirs(folder, exist_ok=True)
    try:
        tables, refusals, failures = run(arguments.seconds, folder)
        print(markdown(tables, refusals, arguments.seconds))
    finally:
        if not arguments.keep:
            shutil.rmtree(folder, ignore_errors=True)
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""gym2048's make_vec beside PufferLib's own 2048 environment, both from Python, in one run.

    python Benchmarks/peers_env.py --binding DIR [--envs 1024] [--rounds 3] [--seconds 3] [--core 1]

DIR holds PufferLib's 2048 environment compiled as its CPython extension (`binding`, with `vec_init`, `vec_reset`,
`vec_step`, `vec_log`, `vec_close`, as PufferLib builds its C environments): `Benchmarks/peers.sh` builds one.
Both contenders step `--envs` boards with uniformly random actions from one cached array. gym2048's side is the
`make_vec` uniform case of `Benchmarks/python.py` (run as its child); PufferLib's binding is stepped as PufferLib's
own Python class steps it: the actions copied into its int32 buffer, one `vec_step` for every board, `vec_log`
every 128 steps. Every timed run is a fresh process pinned to one core, the contenders alternate, and the medians
over the rounds are printed in env-steps per wall second and per CPU second, with the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# PufferLib's Python class logs every 128 steps by default; logging is part of what a step costs there.
LOG_INTERVAL = 128


def peer_run(binding_dir: str, envs: int, seconds: float) -> dict:
    """One timed run of PufferLib's binding: steps, wall seconds and CPU seconds, as Benchmarks/python.py's child."""
    import numpy as np

    sys.path.insert(0, binding_dir)
    import binding  # type: ignore[import-not-found]

    observations = np.zeros((envs, 4, 4), dtype=np.uint8)
    actions = np.zeros(envs, dtype=np.int32)
    rewards = np.zeros(envs, dtype=np.float32)
    terminals = np.zeros(envs, dtype=bool)
    truncations = np.zeros(envs, dtype=bool)
    handle = binding.vec_init(observations, actions, rewards, terminals, truncations, envs, 0)
    binding.vec_reset(handle, 0)
    cached = np.random.default_rng(0).integers(0, 4, size=(1024, envs))
    tick = 0

    def step() -> None:
        nonlocal tick
        actions[:] = cached[tick & 1023]
        binding.vec_step(handle)
        tick += 1
        if tick % LOG_INTERVAL == 0:
            binding.vec_log(handle)

    # The same half-second warm-up as gym2048's side gets.
    warm_until = time.perf_counter() + 0.5
    while time.perf_counter() < warm_until:
        step()
    cpu, start, steps = time.process_time(), time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        step()
        steps += envs
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    binding.vec_close(handle)
    return {"steps": steps, "wall": wall, "cpu": cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="\n".join(__doc__.splitlines()[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binding", required=True, help="the folder of PufferLib's compiled 2048 binding")
    parser.add_argument("--envs", type=int, default=1024, help="boards each contender steps (default 1024)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each contender (default 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds a timed run (default 3)")
    parser.add_argument("--core", type=int, default=1, help="the core every run is pinned to (default 1)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # one timed run of the binding
    args = parser.parse_args()
    if args.envs < 1 or args.rounds < 1 or args.seconds <= 0:
        parser.error("--envs and --rounds must be at least 1, --seconds above 0")
    if args.child:
        print(json.dumps(peer_run(os.path.abspath(args.binding), args.envs, args.seconds)))
        return 0
    sizes = ["--envs", str(args.envs), "--seconds", str(args.seconds)]
    commands = {
        "PufferLib": [os.path.abspath(__file__), "--child", "--binding", args.binding, *sizes],
        "gym2048": [os.path.join(HERE, "python.py"), "--child", "make_vec", "uniform", "inprocess", *sizes],
    }
    runs: dict[str, list[dict]] = {who: [] for who in commands}
    for round_ in range(args.rounds):
        for who, command in commands.items():
            print(f"round {round_ + 1}/{args.rounds}: {who} ...", file=sys.stderr, flush=True)
            out = subprocess.run(["taskset", "-c", str(args.core), sys.executable, *command],
                                 capture_output=True, text=True, timeout=args.seconds * 10 + 120)
            if out.returncode != 0:
                sys.exit(f"error: {who} failed (exit {out.returncode}): {out.stderr[-2000:]}")
            runs[who].append(json.loads(out.stdout.splitlines()[-1]))
    print(f"{args.envs} environments, uniform random actions, {args.rounds} rounds of {args.seconds:g} s pinned to "
          f"core {args.core}; medians, env-steps per second")
    rates = {who: (statistics.median(r["steps"] / r["wall"] for r in results),
                   statistics.median(r["steps"] / r["cpu"] for r in results)) for who, results in runs.items()}
    for who, (wall, cpu) in rates.items():
        print(f"{who:<10} {wall / 1e6:>8.2f} M per wall second {cpu / 1e6:>8.2f} M per CPU second")
    ratio = rates["gym2048"][1] / rates["PufferLib"][1]
    print(f"ratio      {ratio:.2f}x per CPU second (gym2048 make_vec / PufferLib)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""gym2048 from Python: the in-process backend against the server backend, in one run.

    .venv/bin/python Benchmarks/python.py [--envs 1024] [--rounds 3] [--seconds 3] [--core 1]

Run it with the Python that has gym2048 installed (`bash Tests/run-all.sh` makes .venv), from anywhere. Every timed
run is a fresh process pinned to one core (the server a backend starts inherits the pin), the contenders alternate,
and each prints env-steps per wall second and per CPU second (the Python process plus its server child, if any):
the median of the rounds. Cases:

  make      gymnasium.make("Gym2048-v0"): one environment, reset when the episode ends; uniform actions from one
            cached array (an illegal one changes nothing), then a random legal agent (a legal action drawn from
            info["action_mask"])
  make_vec  gymnasium.make_vec("Gym2048-v0", num_envs=--envs), uniform actions from one cached array (as the
            PufferLib comparison steps it), then a random legal agent (one legal action per environment drawn
            from infos["action_mask"] in numpy)
  memorize  gymnasium.make_vec("Memorize-v0", num_envs=--envs) (4x4, 16 cards) with a random legal card per
            environment: argmax of infos["action_mask"] times uniform byte noise (64 cached noise arrays), one numpy
            call for all environments a step. Two rows: "legal" counts the policy's CPU time, "env only" only
            the time inside envs.step (the same run, the policy timed out).

Before the generic game classes (commit 388b833), Memorize's vector read its results per environment in Python.
`--cases` picks cases by kind (`--cases memorize`) to time one game alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CASES = [("make", "uniform"), ("make", "legal"), ("make_vec", "uniform"), ("make_vec", "legal"), ("memorize", "legal")]
BACKENDS = ("inprocess", "server")


def server_cpu(pid: int | None) -> float:
    if not pid:
        return 0.0
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def legal_table(np):  # type: ignore[no-untyped-def]
    """Row m (a mask as a number, bit i = action i) lists its legal actions over 12 columns, 12 being a multiple of
    1, 2, 3 and 4: a uniform column is a uniform legal action (an empty mask picks 0, which autoreset ignores)."""
    table = np.zeros((16, 12), dtype=np.int64)
    for m in range(16):
        legal = [a for a in range(4) if m >> a & 1]
        if legal:
            table[m] = [legal[k % len(legal)] for k in range(12)]
    return table


def child(kind: str, agent: str, backend: str, envs: int, seconds: float) -> dict:
    import gymnasium
    import numpy as np
    import gym2048  # noqa: F401  (registers Gym2048-v0)

    rng = np.random.default_rng(0)
    table, weights = legal_table(np), np.array([1, 2, 4, 8], dtype=np.int64)
    if kind == "make":
        env = gymnasium.make("Gym2048-v0", backend=backend)
        _, info = env.reset(seed=1)
        picks = rng.integers(0, 12, size=1 << 16).tolist()
        uniform = rng.integers(0, 4, size=1 << 16).tolist()
        rows = table.tolist()
        state = {"info": info, "i": 0}

        def step() -> int:
            info, i = state["info"], state["i"]
            if agent == "uniform":
                action = uniform[i & 0xFFFF]
            else:
                up, right, down, left = info["action_mask"].tolist()
                action = rows[up | right << 1 | down << 2 | left << 3][picks[i & 0xFFFF]]
            state["i"] = i + 1
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                _, info = env.reset()
            state["info"] = info
            return 1
        pid = env.unwrapped.server_pid
    elif kind == "memorize":
        env = gymnasium.make_vec("Memorize-v0", num_envs=envs, vectorization_mode="vector_entry_point", backend=backend)
        _, infos = env.reset(seed=1)
        # Bytes, not floats: the mask's bytes times the noise stay bytes, and argmax over bytes is the cheapest
        # numpy has (ties, 1 in 255 per pair of cards, go to the lower card).
        noise = rng.integers(1, 256, size=(64, envs, env.single_action_space.n), dtype=np.uint8)
        state = {"infos": infos, "i": 0, "env_cpu": 0.0}

        def step() -> int:
            i = state["i"]
            state["i"] = i + 1
            # A legal card per environment: the largest noise among the face-down cards (mask 1, others 0).
            actions = np.argmax(state["infos"]["action_mask"].view(np.uint8) * noise[i & 63], axis=1)
            before = time.process_time()
            state["infos"] = env.step(actions)[4]
            state["env_cpu"] += time.process_time() - before
            return envs
        pid = getattr(env, "server_pid", None)  # (before 0.3's generic classes, Memorize's vector had none)
    else:
        env = gymnasium.make_vec("Gym2048-v0", num_envs=envs, vectorization_mode="vector_entry_point", backend=backend)
        _, infos = env.reset(seed=1)
        cached = rng.integers(0, 4, size=(1024, envs))
        columns = rng.integers(0, 12, size=(64, envs))
        state = {"infos": infos, "i": 0}

        def step() -> int:
            i = state["i"]
            state["i"] = i + 1
            if agent == "uniform":
                env.step(cached[i & 1023])
            else:
                actions = table[state["infos"]["action_mask"] @ weights, columns[i & 63]]
                state["infos"] = env.step(actions)[4]
            return envs
        pid = env.server_pid
    warm_until = time.perf_counter() + 0.5
    while time.perf_counter() < warm_until:
        step()
    state["env_cpu"] = 0.0
    cpu0, server0, start = time.process_time(), server_cpu(pid), time.perf_counter()
    steps = 0
    while True:
        steps += step()
        wall = time.perf_counter() - start
        if wall >= seconds:
            break
    served = server_cpu(pid) - server0
    cpu = time.process_time() - cpu0 + served
    env.close()
    return {"steps": steps, "wall": wall, "cpu": cpu, "env_cpu": state["env_cpu"] + served}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=1024, help="environments of make_vec (default 1024)")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each contender (default 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds a timed run (default 3)")
    parser.add_argument("--core", type=int, default=1, help="the core every run is pinned to (default 1)")
    parser.add_argument("--cases", nargs="+", choices=sorted({kind for kind, _ in CASES}),
                        help="the kinds of case to run (default all)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.envs < 1 or args.rounds < 1 or args.seconds <= 0:
        parser.error("--envs and --rounds must be at least 1, --seconds above 0")
    if args.child:
        print(json.dumps(child(*args.child, envs=args.envs, seconds=args.seconds)))
        return
    cases = [(kind, agent) for kind, agent in CASES if not args.cases or kind in args.cases]
    results: dict[tuple[str, str, str], list[dict]] = {}
    for round_ in range(args.rounds):
        for kind, agent in cases:
            for backend in BACKENDS:
                print(f"round {round_ + 1}/{args.rounds}: {kind} {agent} {backend} ...", file=sys.stderr, flush=True)
                command = ["taskset", "-c", str(args.core), sys.executable, os.path.abspath(__file__), "--child",
                           kind, agent, backend, "--envs", str(args.envs), "--seconds", str(args.seconds)]
                out = subprocess.run(command, capture_output=True, text=True, timeout=args.seconds * 10 + 120)
                if out.returncode != 0:
                    sys.exit(f"error: {kind} {agent} {backend} failed (exit {out.returncode}): {out.stderr[-2000:]}")
                results.setdefault((kind, agent, backend), []).append(json.loads(out.stdout.splitlines()[-1]))
    print(f"gym2048 from Python, {args.rounds} rounds of {args.seconds:g} s pinned to core {args.core}; "
          f"make_vec with {args.envs} environments; medians, env-steps per second")
    print(f"{'case':<20} {'in-process wall':>16} {'CPU':>9} {'server wall':>13} {'CPU':>9} {'ratio (CPU)':>12}")
    rows = [(kind, agent, "cpu") for kind, agent in cases]
    rows += [(kind, "env only", "env_cpu") for kind, agent in cases if kind == "memorize"]
    for kind, agent, counted in rows:
        rates = {}
        for backend in BACKENDS:
            runs = results[(kind, "legal" if agent == "env only" else agent, backend)]
            rates[backend] = (statistics.median(r["steps"] / r["wall"] for r in runs),
                              statistics.median(r["steps"] / r[counted] for r in runs))
        (iw, ic), (sw, sc) = rates["inprocess"], rates["server"]
        label = f"{kind} {agent}"
        print(f"{label:<20} {iw / 1e6:>14.3f} M {ic / 1e6:>7.3f} M {sw / 1e6:>11.3f} M {sc / 1e6:>7.3f} M {ic / sc:>11.1f}x")


if __name__ == "__main__":
    main()

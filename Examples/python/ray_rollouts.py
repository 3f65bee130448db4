"""Rollouts of Gym2048-v0 on K Ray actors, each owning one vector server; episode scores and env-steps/s.

    python3 Examples/python/ray_rollouts.py --actors 2 --num-envs 256 --seconds 10
    python3 Examples/python/ray_rollouts.py --actors 8 --address auto          # on a running cluster

Each actor makes `gymnasium.make_vec("Gym2048-v0", num_envs=N)` (one `g2048 serve` process in vector mode,
whatever N) and steps it for `--seconds` with a numpy random legal-action agent, or with the policy named by
`--policy module:function` (called as `policy(observations, action_masks, rng)` and returning one action
per environment; the module must be importable, e.g. on PYTHONPATH, on every machine that runs actors). Every actor reports its finished episodes' scores and its env-steps/s; the script prints
each actor's figures and the total (all actors' steps over the common measuring time). Actors start their
servers and reset before the clock starts, so start-up is not counted.

Ray: `ray.init()` starts a local Ray on this machine. `--address ADDRESS` (or the RAY_ADDRESS environment
variable, which `ray.init()` reads) connects to an existing cluster instead, with no change to the code:

    # on the head machine
    ray start --head --port 6379
    # on every other machine
    ray start --address HEAD_IP:6379
    # then, on any machine of the cluster
    python3 Examples/python/ray_rollouts.py --address auto --actors 8

Every machine that runs actors needs the gym2048 package installed in the Python that Ray runs there
(`python3 -m pip install ./python` from a clone, which builds the Swift server on that machine,
so each needs the Swift toolchain), plus numpy, gymnasium and ray. Each actor asks Ray for
`--cpus-per-actor` CPUs (default 1): an actor and its server keep about one core busy between them.

Needs the gym2048 package, numpy and ray: `bash Examples/python/rl-examples.sh` sets them up in `.venv-rl`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import time
from typing import Any, Callable

import numpy as np

Policy = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]


def random_legal(observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per environment.

    An environment that has just finished waits for its automatic reset and reports an all-zero mask; it
    ignores its action, and `argmax` over the all-(-1) row picks 0, so no special case is needed.
    """
    return np.where(masks.astype(bool), rng.random(masks.shape), -1.0).argmax(axis=1)


def load_policy(name: str | None) -> Policy:
    """The policy `module:function`, or the random legal agent when `name` is None."""
    if name is None:
        return random_legal
    module, _, attribute = name.partition(":")
    if not module or not attribute:
        raise ValueError(f"--policy must be module:function, got {name!r}")
    return getattr(importlib.import_module(module), attribute)


class RolloutWorker:
    """One vector server and the loop that steps it (a Ray actor once wrapped by `ray.remote`)."""

    def __init__(self, num_envs: int, seed: int, policy: str | None):
        import gymnasium
        import gym2048  # noqa: F401  (registers Gym2048-v0 in this worker process)

        self.num_envs = num_envs
        self.policy = load_policy(policy)
        self.rng = np.random.default_rng(seed)
        self.envs = gymnasium.make_vec("Gym2048-v0", num_envs=num_envs,
                                       info=["action_mask", "score", "max_tile"])
        # One int seeds the whole vector: each environment gets its own seed derived from it.
        self.observations, self.infos = self.envs.reset(seed=seed)

    def where(self) -> str:
        """The host name and process id this actor runs in."""
        import socket
        return f"{socket.gethostname()}:{os.getpid()}"

    def run(self, seconds: float) -> dict[str, Any]:
        """Step for `seconds`; returns steps, elapsed time and the score and largest tile of each finished episode."""
        scores: list[int] = []
        tiles: list[int] = []
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        observations, infos = self.observations, self.infos
        while time.perf_counter() < deadline:
            actions = self.policy(observations, infos["action_mask"], self.rng)
            observations, _, terminated, truncated, infos = self.envs.step(actions)
            steps += self.num_envs
            done = np.flatnonzero(terminated | truncated)
            if done.size:
                scores.extend(int(s) for s in np.asarray(infos["score"])[done])
                tiles.extend(int(t) for t in np.asarray(infos["max_tile"])[done])
        elapsed = time.perf_counter() - start
        self.observations, self.infos = observations, infos
        return {"where": self.where(), "steps": steps, "seconds": elapsed, "steps_per_second": steps / elapsed,
                "episodes": len(scores), "scores": scores, "max_tiles": tiles}

    def close(self) -> None:
        """Stop the server."""
        self.envs.close()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--actors", type=int, default=2, help="number of Ray actors, K (default 2)")
    parser.add_argument("--num-envs", type=int, default=256, help="environments per actor's server (default 256)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring time per actor (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="actor k uses seed + k (default 1)")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (e.g. auto or HEAD_IP:6379); default: RAY_ADDRESS if set, "
                             "else a local Ray")
    parser.add_argument("--cpus-per-actor", type=float, default=1.0, help="CPUs Ray reserves per actor (default 1)")
    parser.add_argument("--policy", metavar="MODULE:FUNCTION", default=None,
                        help="policy(observations, action_masks, rng) -> actions (default: random legal)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args(argv)
    for flag in ("actors", "num_envs"):
        if getattr(args, flag) <= 0:
            parser.error(f"--{flag.replace('_', '-')} must be a positive integer, got {getattr(args, flag)}")
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        parser.error(f"--seconds must be a positive number, got {args.seconds}")
    if not (math.isfinite(args.cpus_per_actor) and args.cpus_per_actor >= 0):
        parser.error(f"--cpus-per-actor must be a non-negative number, got {args.cpus_per_actor}")
    if args.seed < 0:
        parser.error(f"--seed must be non-negative, got {args.seed}")
    if args.policy is not None:
        try:
            load_policy(args.policy)
        except (ValueError, ImportError, AttributeError) as error:
            parser.error(f"--policy {args.policy}: {error}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import ray

    # address=None lets ray.init() read RAY_ADDRESS, and start a local Ray when that is unset too.
    ray.init(address=args.address, logging_level="warning", log_to_driver=True)
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        if args.actors * args.cpus_per_actor > cpus:
            # Ray would wait for resources forever: say so instead of hanging.
            print(f"error: --actors {args.actors} × --cpus-per-actor {args.cpus_per_actor:g} needs "
                  f"{args.actors * args.cpus_per_actor:g} CPUs, the Ray cluster has {cpus:g}", file=sys.stderr)
            return 1
        Worker = ray.remote(num_cpus=args.cpus_per_actor)(RolloutWorker)
        workers = [Worker.remote(args.num_envs, args.seed + k, args.policy) for k in range(args.actors)]
        where = ray.get([w.where.remote() for w in workers])  # servers up and reset before the clock starts
        print(f"[ray] {args.actors} actors × {args.num_envs} environments, {args.seconds:g} s: "
              f"{', '.join(where)}", file=sys.stderr, flush=True)
        reports = ray.get([w.run.remote(args.seconds) for w in workers])
        ray.get([w.close.remote() for w in workers])
    finally:
        ray.shutdown()

    steps = sum(r["steps"] for r in reports)
    seconds = max(r["seconds"] for r in reports)
    scores = [s for r in reports for s in r["scores"]]
    total = {"actors": args.actors, "num_envs": args.num_envs, "steps": steps, "seconds": seconds,
             "steps_per_second": steps / seconds, "episodes": len(scores),
             "mean_score": float(np.mean(scores)) if scores else None}
    if args.json:
        print(json.dumps({"total": total, "actors": reports}))
        return 0
    for k, r in enumerate(reports):
        mean = f"{np.mean(r['scores']):,.1f}" if r["scores"] else "-"
        print(f"actor {k} ({r['where']}): {r['steps']:>12,} steps in {r['seconds']:.2f} s = "
              f"{r['steps_per_second']:>12,.0f} env-steps/s, {r['episodes']:,} episodes, mean score {mean}")
    mean = f"{total['mean_score']:,.1f}" if scores else "-"
    print(f"total ({args.actors} actors × {args.num_envs} envs): {steps:>12,} steps in {seconds:.2f} s = "
          f"{total['steps_per_second']:>12,.0f} env-steps/s, {len(scores):,} episodes, mean score {mean}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

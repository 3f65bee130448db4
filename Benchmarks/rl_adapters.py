#!/usr/bin/env python3
"""gym2048 through the RL libraries' own interfaces, in one run: Stable-Baselines3 and PufferLib.

    .venv-rl/bin/python Benchmarks/rl_adapters.py sb3 [--envs 8 64 256] [--rounds 3] [--seconds 3]
    .venv-rl/bin/python Benchmarks/rl_adapters.py puffer --peer DIR [--agents 1024]

Run it with a Python that has gym2048, torch and sb3-contrib (sb3) or pufferlib-core (puffer), as
`bash Examples/python/rl-examples.sh` makes `.venv-rl`. Every timed run is a fresh process pinned to one core
(`--core`), the contenders alternate, and each prints environment steps per CPU second (the median of the rounds).

  sb3     what MaskablePPO does to collect a rollout, without the network: the masks through
          `env_method("action_masks")`, one random legal action per board, `step`. Through
          `gym2048.sb3.Gym2048SB3VecEnv` (one engine call a step) against SB3's `DummyVecEnv` over
          `gymnasium.make("Gym2048-v0", observation="onehot_flat")` (one Python environment after another).
  puffer  `gym2048.puffer.Gym2048Puffer` under `pufferlib.vector.Serial` (one environment of `--agents` boards),
          uniform random actions, against another PufferLib environment of the same shape under the same
          vectorization: with `--peer DIR`, a compiled PufferLib 2048 binding (a `binding` module in DIR with
          `vec_init`, `vec_reset`, `vec_step`, `vec_close`, as PufferLib's ocean environments build them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np


def timed(step: Any, per_step: int, seconds: float) -> float:
    """Steps per CPU second of calling `step()` for `seconds` of wall time."""
    cpu, wall = time.process_time(), time.perf_counter()
    steps = 0
    while time.perf_counter() - wall < seconds:
        step()
        steps += per_step
    return steps / (time.process_time() - cpu)


def sb3_case(kind: str, envs: int, seconds: float) -> float:
    import gymnasium
    from stable_baselines3.common.vec_env import DummyVecEnv

    import gym2048  # noqa: F401
    from gym2048.sb3 import Gym2048SB3VecEnv
    if kind == "gym2048":
        vec: Any = Gym2048SB3VecEnv(envs)
    else:
        vec = DummyVecEnv([lambda: gymnasium.make("Gym2048-v0", observation="onehot_flat") for _ in range(envs)])
    vec.seed(1)
    vec.reset()
    rng = np.random.default_rng(0)

    def step() -> None:
        masks = np.stack(vec.env_method("action_masks"))
        scores = rng.random(masks.shape) * masks
        vec.step(scores.argmax(axis=1))
    step()
    result = timed(step, envs, seconds)
    vec.close()
    return result


def puffer_case(kind: str, agents: int, seconds: float, peer: str | None) -> float:
    import gymnasium
    import pufferlib
    import pufferlib.vector
    if kind == "gym2048":
        from gym2048.puffer import Gym2048Puffer
        creator: Any = Gym2048Puffer
    else:
        assert peer is not None
        sys.path.insert(0, peer)
        import binding  # type: ignore[import-not-found]

        class Peer(pufferlib.PufferEnv):  # type: ignore[misc]
            def __init__(self, num_envs: int = 1, buf: Any = None, seed: int = 0) -> None:
                self.single_observation_space = gymnasium.spaces.Box(0, 100, (4, 4), np.uint8)
                self.single_action_space = gymnasium.spaces.Discrete(4)
                self.num_agents = num_envs
                super().__init__(buf)
                self.handle = binding.vec_init(self.observations, self.actions, self.rewards, self.terminals,
                                               self.truncations, num_envs, seed)

            def reset(self, seed: Any = 0) -> Any:
                binding.vec_reset(self.handle, seed or 0)
                return self.observations, []

            def step(self, actions: Any) -> Any:
                self.actions[:] = actions
                binding.vec_step(self.handle)
                return self.observations, self.rewards, self.terminals, self.truncations, []

            def close(self) -> None:
                binding.vec_close(self.handle)
        creator = Peer
    vec = pufferlib.vector.make(creator, env_kwargs={"num_envs": agents}, backend=pufferlib.vector.Serial, num_envs=1)
    vec.reset(seed=1)
    actions = np.random.default_rng(0).integers(0, 4, (256, agents)).astype(np.int32)
    index = [0]

    def step() -> None:
        vec.step(actions[index[0] & 255])
        index[0] += 1
    step()
    result = timed(step, agents, seconds)
    vec.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="\n".join(__doc__.splitlines()[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", choices=["sb3", "puffer"])
    parser.add_argument("--envs", type=int, nargs="+", default=[8, 64, 256], help="sb3: boards (default 8 64 256)")
    parser.add_argument("--agents", type=int, default=1024, help="puffer: boards (default 1024)")
    parser.add_argument("--peer", default=None, help="puffer: the folder of a compiled PufferLib 2048 binding")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--core", type=int, default=1, help="the core every timed process is pinned to")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a single timed run, in a child process
    args = parser.parse_args()
    if args.one:
        kind, size = args.one.split(":")
        value = (sb3_case(kind, int(size), args.seconds) if args.suite == "sb3"
                 else puffer_case(kind, int(size), args.seconds, args.peer))
        print(json.dumps(value))
        return 0
    if args.suite == "puffer" and args.peer is None:
        parser.error("puffer needs --peer DIR, the folder of the binding to compare with")
    sizes = args.envs if args.suite == "sb3" else [args.agents]
    other = "dummy" if args.suite == "sb3" else "peer"
    for size in sizes:
        runs: dict[str, list[float]] = {"gym2048": [], other: []}
        for _ in range(args.rounds):
            for kind in runs:
                command = ["taskset", "-c", str(args.core), sys.executable, os.path.abspath(__file__), args.suite,
                           "--one", f"{kind}:{size}", "--seconds", str(args.seconds)]
                if args.peer:
                    command += ["--peer", args.peer]
                output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                runs[kind].append(float(output.strip().splitlines()[-1]))
        ours, theirs = statistics.median(runs["gym2048"]), statistics.median(runs[other])
        print(f"{args.suite} {size:>5} boards: gym2048 {ours / 1e3:,.1f} k steps per CPU s, {other} "
              f"{theirs / 1e3:,.1f} k: {ours / theirs:.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Train sb3-contrib's MaskablePPO on Gym2048, then compare it with a random legal agent on the same seeds.

    python -m gym2048.examples.maskable_ppo --minutes 10 --seed 1
    python -m gym2048.examples.maskable_ppo --timesteps 200000 --envs 64 --eval-episodes 50 --json
    python -m gym2048.examples.maskable_ppo --vec dummy --envs 8      # SB3's DummyVecEnv, for comparison

The policy sees the board as the engine's float32 one-hot vector (`observation="onehot_flat"`: one 0/1 plane per
tile exponent, flattened), and illegal moves are masked with the masks the environment reports, so it never
wastes a step on a move that does not change the board. Rewards are the merged tile values, normalised by a
running estimate of the return's spread (VecNormalize).

Training runs `--envs` boards side by side until `--timesteps` steps or `--minutes` minutes, whichever comes first:
by default through `gym2048.sb3.Gym2048SB3VecEnv` (all boards in one engine call a step); `--vec dummy` uses SB3's
`DummyVecEnv` over single `Gym2048-v0` environments instead (one Python call per board). Evaluation then plays
`--eval-episodes` episodes with the trained policy (greedy, masked) and as many with a random legal agent, on the
same seeds (`--eval-seed`, `--eval-seed + 1`, …). Progress goes to stderr, results to stdout (`--json` for one JSON
object, with the training speed in environment steps per second).

Reproducible: with the same `--seed` and `--timesteps` (and no `--minutes`) two runs on one machine train the same
weights and print the same figures; a `--minutes` budget stops at a wall-clock time, so the script prints the number
of steps it trained for to rerun it exactly with `--timesteps`.

Needs torch, sb3-contrib and gymnasium: `pip install torch --index-url https://download.pytorch.org/whl/cpu` (the
CPU build; plain `pip install torch` pulls gigabytes of GPU libraries) and `pip install sb3-contrib`.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import sys
import time
from typing import Any, Callable

import gymnasium
import numpy as np

import gym2048  # noqa: F401  (registers Gym2048-v0)

OBSERVATION = "onehot_flat"
INFO_KEYS = ["action_mask", "score", "max_tile"]


def log(message: str) -> None:
    """Progress line on stderr, so stdout holds only the results."""
    print(message, file=sys.stderr, flush=True)


def make_env() -> gymnasium.Env[Any, Any]:
    """One Gym2048-v0 environment as the agent sees it (its `action_masks()` reads the mask of the last info)."""
    return gymnasium.make("Gym2048-v0", observation=OBSERVATION, info=INFO_KEYS)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop training after this many minutes of wall-clock time")
    parser.add_argument("--timesteps", type=int, default=None,
                        help="stop training after this many environment steps (default 50000 without --minutes)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the policy, the training environments "
                        "and the random agent (default 1)")
    parser.add_argument("--envs", type=int, default=8, help="boards trained on side by side (default 8)")
    parser.add_argument("--vec", choices=["gym2048", "dummy"], default="gym2048",
                        help="gym2048: Gym2048SB3VecEnv, one engine call a step (default); dummy: SB3's DummyVecEnv "
                        "over single environments")
    parser.add_argument("--eval-episodes", type=int, default=20, help="episodes per agent in the evaluation "
                        "(default 20)")
    parser.add_argument("--eval-seed", type=int, default=10_000,
                        help="first evaluation seed; episode i uses eval-seed + i (default 10000)")
    parser.add_argument("--save", metavar="PATH", default=None, help="save the trained model (a .zip)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args(argv)
    if args.minutes is not None and not (math.isfinite(args.minutes) and args.minutes > 0):
        parser.error(f"--minutes must be a positive number, got {args.minutes}")
    if args.timesteps is not None and args.timesteps <= 0:
        parser.error(f"--timesteps must be a positive integer, got {args.timesteps}")
    if args.minutes is None and args.timesteps is None:
        args.timesteps = 50_000
    for flag in ("envs", "eval_episodes"):
        if getattr(args, flag) <= 0:
            parser.error(f"--{flag.replace('_', '-')} must be a positive integer, got {getattr(args, flag)}")
    if args.seed < 0 or args.eval_seed < 0:
        parser.error(f"--seed and --eval-seed must be non-negative, got {args.seed} and {args.eval_seed}")
    return args


def train(args: argparse.Namespace) -> tuple[Any, int, float]:
    """Train MaskablePPO within the budget; returns the model and the number of steps it trained for."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    # One thread: the machine's other core serves the environments, and single-threaded torch is deterministic.
    torch.set_num_threads(1)
    if args.vec == "gym2048":
        from gym2048.sb3 import Gym2048SB3VecEnv
        venv: Any = Gym2048SB3VecEnv(args.envs, observation=OBSERVATION)
    else:
        venv = DummyVecEnv([make_env for _ in range(args.envs)])
    venv.seed(args.seed)  # environment i's first reset uses seed + i; later episodes continue its stream
    venv = VecNormalize(venv, norm_obs=False, norm_reward=True, gamma=0.99)
    rollout = 256
    model = MaskablePPO(
        "MlpPolicy", venv, seed=args.seed, verbose=0, device="cpu",
        n_steps=rollout, batch_size=256, n_epochs=4, learning_rate=3e-4, gamma=0.99, gae_lambda=0.95,
        ent_coef=0.01, policy_kwargs={"net_arch": [256, 256]})

    deadline = None if args.minutes is None else time.monotonic() + args.minutes * 60

    class Progress(BaseCallback):  # type: ignore[misc]
        """Stops at the deadline and logs steps, speed and recent scores to stderr every 10 seconds."""

        def __init__(self) -> None:
            super().__init__()
            self.scores: collections.deque[int] = collections.deque(maxlen=100)
            self.episodes = 0
            self.start = time.monotonic()
            self.last = self.start

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done:
                    self.scores.append(int(info["score"]))
                    self.episodes += 1
            now = time.monotonic()
            if now - self.last >= 10:
                self.last = now
                mean = f"{np.mean(self.scores):,.0f}" if self.scores else "-"
                log(f"[train] {self.num_timesteps:,} steps, {self.num_timesteps / (now - self.start):,.0f} "
                    f"steps/s, {self.episodes} episodes, mean score of the last {len(self.scores)}: {mean}")
            return deadline is None or now < deadline

    budget = args.timesteps if args.timesteps is not None else 10**12
    what = " and ".join(part for part in (
        f"{args.timesteps:,} steps" if args.timesteps is not None else "",
        f"{args.minutes:g} minutes" if args.minutes is not None else "") if part)
    log(f"[train] MaskablePPO on Gym2048 ({OBSERVATION}), {args.envs} boards through {args.vec}, seed {args.seed}, "
        f"budget {what}")
    start = time.monotonic()
    model.learn(total_timesteps=budget, callback=Progress())
    seconds = time.monotonic() - start
    log(f"[train] done: {model.num_timesteps:,} steps in {seconds:,.0f} s "
        f"({model.num_timesteps / seconds:,.0f} steps/s, network updates included)")
    venv.close()
    return model, model.num_timesteps, seconds


def play(choose: Callable[[Any, Any, np.random.Generator], int], seeds: list[int]) -> list[dict[str, int]]:
    """Play one episode per seed with `choose(obs, mask, rng) -> action`; returns score and max tile of each."""
    env = make_env()
    results = []
    try:
        for seed in seeds:
            rng = np.random.default_rng(seed)
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
                obs, _, terminated, truncated, info = env.step(choose(obs, mask, rng))
                done = terminated or truncated
            results.append({"seed": seed, "score": int(info["score"]), "max_tile": int(info["max_tile"])})
    finally:
        env.close()
    return results


def summary(results: list[dict[str, int]]) -> dict[str, Any]:
    """Mean score and the count of episodes reaching each largest tile."""
    tiles = collections.Counter(r["max_tile"] for r in results)
    return {"episodes": len(results), "mean_score": float(np.mean([r["score"] for r in results])),
            "max_tiles": {str(tile): tiles[tile] for tile in sorted(tiles)}, "episodes_detail": results}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    model, trained, seconds = train(args)
    if args.save:
        model.save(args.save)
        log(f"[train] saved {args.save}")

    seeds = list(range(args.eval_seed, args.eval_seed + args.eval_episodes))
    log(f"[eval] {len(seeds)} episodes per agent, seeds {seeds[0]}…{seeds[-1]}")

    def trained_choice(obs: Any, mask: Any, rng: np.random.Generator) -> int:
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    def random_choice(obs: Any, mask: Any, rng: np.random.Generator) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    policy = summary(play(trained_choice, seeds))
    baseline = summary(play(random_choice, seeds))
    result = {"timesteps": trained, "seed": args.seed, "observation": OBSERVATION, "envs": args.envs, "vec": args.vec,
              "train_seconds": seconds, "steps_per_second": trained / seconds,
              "eval_seeds": [seeds[0], seeds[-1]], "maskable_ppo": policy, "random_legal": baseline}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"MaskablePPO on Gym2048: {trained:,} training steps ({trained / seconds:,.0f} steps/s through "
              f"{args.vec}, {args.envs} boards), seed {args.seed}; {len(seeds)} evaluation episodes per agent on "
              f"seeds {seeds[0]}…{seeds[-1]}")
        for name, stats in (("MaskablePPO (greedy)", policy), ("random legal agent", baseline)):
            tiles = ", ".join(f"{tile}: {count}" for tile, count in stats["max_tiles"].items())
            print(f"  {name:<21} mean score {stats['mean_score']:>9,.1f}   largest tile {tiles}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

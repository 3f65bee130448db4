"""Train sb3-contrib's MaskablePPO on Gym2048, then compare it with a random legal agent on the same seeds.

    python -m gym2048.examples.maskable_ppo                      # the recipe: about five minutes on 2 cores
    python -m gym2048.examples.maskable_ppo --csv curve.csv --tensorboard runs/   # its curve, and TensorBoard's
    python -m gym2048.examples.maskable_ppo --rows 3 --cols 3 --solution s3x3.bin  # 3x3, and its exact score
    python -m gym2048.examples.maskable_ppo --minutes 10 --json  # a wall-clock budget; one JSON object
    python -m gym2048.examples.maskable_ppo --vec dummy --envs 8 # SB3's DummyVecEnv, for comparison

The recipe (every default below): the policy sees the board as the engine's float32 one-hot vector
(`observation="onehot_flat"`: one 0/1 plane per tile exponent, flattened), illegal moves are masked with the masks
the environment reports, so it never wastes a step on a move that does not change the board, and each reward (the
merged tiles' values, up to thousands) is scaled to log2(1 + reward) / 16, so a step's reward stays below 1
whatever the tile.

Training runs `--envs` boards side by side until `--timesteps` steps or `--minutes` minutes, whichever comes first:
by default through `gym2048.sb3.Gym2048SB3VecEnv` (all boards in one engine call a step); `--vec dummy` uses SB3's
`DummyVecEnv` over single `Gym2048-v0` environments instead (one Python call per board). After each rollout
(`--envs` x `--n-steps` steps) `--csv` gets one row: the steps so far, the seconds, and the mean score of the
training episodes that ended in that rollout (the learning curve). Evaluation then plays `--eval-episodes`
episodes with the trained policy (greedy, masked) and as many with a random legal agent, on the same seeds
(`--eval-seed`, `--eval-seed + 1`, ...); with `--solution` (a `g2048 solve` file of the same board) it also
computes the greedy policy's exact expected score and its fraction of optimal play, which takes minutes on 3x3
(every board the policy reaches, about 10^8, goes through the network once). Progress goes to stderr, results
to stdout (`--json` for one JSON object, with the training speed in environment steps per second).

Reproducible: with the same `--seed` and `--timesteps` (and no `--minutes`) two runs on one machine train the same
weights and print the same figures; a `--minutes` budget stops at a wall-clock time, so the script prints the number
of steps it trained for to rerun it exactly with `--timesteps`.

Needs torch, sb3-contrib and gymnasium: `pip install torch --index-url https://download.pytorch.org/whl/cpu` (the
CPU build; plain `pip install torch` pulls gigabytes of GPU libraries) and `pip install sb3-contrib`; `--tensorboard`
also needs `pip install tensorboard`.
"""

from __future__ import annotations

import argparse
import collections
import csv
import importlib.util
import json
import math
import sys
import time
from typing import Any, Callable, Optional

import gymnasium
import numpy as np

import gym2048  # noqa: F401  (registers Gym2048-v0)

OBSERVATION = "onehot_flat"
INFO_KEYS = ["action_mask", "score", "max_tile"]
#: The columns of `--csv`, one row per rollout.
CURVE_COLUMNS = ["steps", "seconds", "episodes", "mean_score"]
#: log2 of the largest reward a board of up to 8x8 cells can give is below 16, so scaled rewards stay in [0, 1).
REWARD_LOG_SCALE = 16.0


def log(message: str) -> None:
    """Progress line on stderr, so stdout holds only the results."""
    print(message, file=sys.stderr, flush=True)


def make_env(rows: int = 4, cols: int = 4) -> gymnasium.Env[Any, Any]:
    """One Gym2048-v0 environment as the agent sees it (its `action_masks()` reads the mask of the last info)."""
    return gymnasium.make("Gym2048-v0", rows=rows, cols=cols, observation=OBSERVATION, info=INFO_KEYS)


def positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type: `kind`, above zero and finite, else a usage error naming the value."""
    def parse(text: str) -> Any:
        value = kind(text)
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be a positive number, got {value}")
        return value
    parse.__name__ = kind.__name__  # argparse names the type in its message
    return parse


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]))
    budget = parser.add_argument_group("budget")
    budget.add_argument("--timesteps", type=positive(int), default=None, metavar="N",
                        help="stop after N environment steps (default 600000 without --minutes: about five minutes "
                        "on 2 cores)")
    budget.add_argument("--minutes", type=positive(float), default=None, metavar="M",
                        help="stop after M minutes of wall-clock time")
    recipe = parser.add_argument_group("recipe")
    recipe.add_argument("--rows", type=int, default=4, help="board rows (default 4)")
    recipe.add_argument("--cols", type=int, default=4, help="board columns (default 4)")
    recipe.add_argument("--envs", type=positive(int), default=32, metavar="N",
                        help="boards trained on side by side (default 32)")
    recipe.add_argument("--n-steps", type=positive(int), default=128, metavar="N",
                        help="steps per board in a rollout, between updates (default 128)")
    recipe.add_argument("--batch-size", type=positive(int), default=512, metavar="N",
                        help="minibatch of an update (default 512)")
    recipe.add_argument("--epochs", type=positive(int), default=4, metavar="N",
                        help="passes over each rollout (default 4)")
    recipe.add_argument("--learning-rate", type=positive(float), default=3e-4, metavar="LR", help="Adam's step "
                        "(default 0.0003)")
    recipe.add_argument("--gamma", type=positive(float), default=0.99, help="discount (default 0.99)")
    recipe.add_argument("--net", default="256,256", metavar="SIZES",
                        help="hidden layers of the policy and of the value network (default 256,256)")
    recipe.add_argument("--reward", choices=["log", "normalize"], default="log",
                        help="log: log2(1 + reward) / 16 (default); normalize: SB3's VecNormalize, the reward over "
                        "a running estimate of the return's spread")
    parser.add_argument("--seed", type=int, default=1, help="seed of the policy, the training environments "
                        "and the random agent (default 1)")
    parser.add_argument("--vec", choices=["gym2048", "dummy"], default="gym2048",
                        help="gym2048: Gym2048SB3VecEnv, one engine call a step (default); dummy: SB3's DummyVecEnv "
                        "over single environments")
    out = parser.add_argument_group("output")
    out.add_argument("--eval-episodes", type=positive(int), default=100, metavar="N",
                     help="episodes per agent in the evaluation (default 100)")
    out.add_argument("--eval-seed", type=int, default=10_000,
                     help="first evaluation seed; episode i uses eval-seed + i (default 10000)")
    out.add_argument("--csv", metavar="PATH", default=None,
                     help="write the learning curve: one row per rollout (" + ", ".join(CURVE_COLUMNS) + ")")
    out.add_argument("--tensorboard", metavar="DIR", default=None,
                     help="log to TensorBoard through SB3's logger (with game/score, the curve's mean score)")
    out.add_argument("--solution", metavar="PATH", default=None,
                     help="a `g2048 solve` file of this board: also the greedy policy's exact expected score")
    out.add_argument("--save", metavar="PATH", default=None, help="save the trained model (a .zip)")
    out.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args(argv)
    if args.minutes is None and args.timesteps is None:
        args.timesteps = 600_000
    if args.seed < 0 or args.eval_seed < 0:
        parser.error(f"--seed and --eval-seed must be non-negative, got {args.seed} and {args.eval_seed}")
    try:
        args.net = [int(size) for size in args.net.split(",")]
        if not all(size > 0 for size in args.net):
            raise ValueError
    except ValueError:
        parser.error(f"--net must be positive layer sizes separated by commas, such as 256,256, got {args.net!r}")
    if args.tensorboard is not None and importlib.util.find_spec("tensorboard") is None:
        parser.error("--tensorboard needs the tensorboard package: pip install tensorboard")
    return args


def make_venv(args: argparse.Namespace) -> Any:
    """The training boards, seeded, with the recipe's reward scaling."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize, VecEnvWrapper

    if args.vec == "gym2048":
        from gym2048.sb3 import Gym2048SB3VecEnv
        venv: Any = Gym2048SB3VecEnv(args.envs, rows=args.rows, cols=args.cols, observation=OBSERVATION)
    else:
        venv = DummyVecEnv([lambda: make_env(args.rows, args.cols) for _ in range(args.envs)])
    venv.seed(args.seed)  # environment i's first reset uses seed + i; later episodes continue its stream
    if args.reward == "normalize":
        return VecNormalize(venv, norm_obs=False, norm_reward=True, gamma=args.gamma)

    class LogReward(VecEnvWrapper):  # type: ignore[misc]
        """Rewards as log2(1 + reward) / 16: a merge of two 1024s is worth 0.69, not 2048 times a merge of 2s,
        so one big merge does not swamp the value network's loss. Infos keep the game's score."""

        def reset(self) -> Any:
            return self.venv.reset()

        def step_wait(self) -> Any:
            observations, rewards, dones, infos = self.venv.step_wait()
            return observations, np.log2(1 + rewards) / REWARD_LOG_SCALE, dones, infos

    return LogReward(venv)


def train(args: argparse.Namespace) -> tuple[Any, int, float, list[dict[str, float]]]:
    """Train MaskablePPO within the budget; returns the model, the steps it trained for, the seconds, the curve."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    # One thread: the machine's other core serves the environments, and single-threaded torch is deterministic.
    torch.set_num_threads(1)
    venv = make_venv(args)
    model = MaskablePPO(
        "MlpPolicy", venv, seed=args.seed, verbose=0, device="cpu", tensorboard_log=args.tensorboard,
        n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.epochs, learning_rate=args.learning_rate,
        gamma=args.gamma, gae_lambda=0.95, ent_coef=0.01, policy_kwargs={"net_arch": args.net})

    deadline = None if args.minutes is None else time.monotonic() + args.minutes * 60
    curve: list[dict[str, float]] = []
    writer = None
    curve_file = open(args.csv, "w", newline="") if args.csv else None
    if curve_file is not None:
        writer = csv.DictWriter(curve_file, CURVE_COLUMNS)
        writer.writeheader()

    class Progress(BaseCallback):  # type: ignore[misc]
        """Stops at the deadline, records the curve after each rollout and logs progress every 10 seconds."""

        def __init__(self) -> None:
            super().__init__()
            self.rollout_scores: list[int] = []
            self.recent: collections.deque[int] = collections.deque(maxlen=100)
            self.episodes = 0
            self.start = time.monotonic()
            self.last = self.start

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done:
                    self.rollout_scores.append(int(info["score"]))
                    self.recent.append(int(info["score"]))
                    self.episodes += 1
            now = time.monotonic()
            if now - self.last >= 10:
                self.last = now
                mean = f"{np.mean(self.recent):,.0f}" if self.recent else "-"
                log(f"[train] {self.num_timesteps:,} steps, {self.num_timesteps / (now - self.start):,.0f} "
                    f"steps/s, {self.episodes} episodes, mean score of the last {len(self.recent)}: {mean}")
            return deadline is None or now < deadline

        def _on_rollout_end(self) -> None:
            if not self.rollout_scores:
                return
            row = {"steps": self.num_timesteps, "seconds": round(time.monotonic() - self.start, 3),
                   "episodes": self.episodes, "mean_score": round(float(np.mean(self.rollout_scores)), 2)}
            self.rollout_scores = []
            curve.append(row)
            self.logger.record("game/score", row["mean_score"])
            if writer is not None and curve_file is not None:
                writer.writerow(row)
                curve_file.flush()

    budget = args.timesteps if args.timesteps is not None else 10**12
    what = " and ".join(part for part in (
        f"{args.timesteps:,} steps" if args.timesteps is not None else "",
        f"{args.minutes:g} minutes" if args.minutes is not None else "") if part)
    log(f"[train] MaskablePPO on Gym2048 {args.rows}x{args.cols} ({OBSERVATION}, {args.reward} reward, net "
        f"{args.net}), {args.envs} boards through {args.vec}, seed {args.seed}, budget {what}")
    start = time.monotonic()
    try:
        model.learn(total_timesteps=budget, callback=Progress(), tb_log_name=f"maskable_ppo_{args.rows}x{args.cols}")
    finally:
        if curve_file is not None:
            curve_file.close()
    seconds = time.monotonic() - start
    log(f"[train] done: {model.num_timesteps:,} steps in {seconds:,.0f} s "
        f"({model.num_timesteps / seconds:,.0f} steps/s, network updates included)")
    venv.close()
    return model, model.num_timesteps, seconds, curve


def play(choose: Callable[[Any, Any, np.random.Generator], int], seeds: list[int],
         rows: int, cols: int) -> list[dict[str, int]]:
    """Play one episode per seed with `choose(obs, mask, rng) -> action`; returns score and max tile of each."""
    env = make_env(rows, cols)
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
    """Mean score, its standard error, and the count of episodes reaching each largest tile."""
    scores = [r["score"] for r in results]
    tiles = collections.Counter(r["max_tile"] for r in results)
    sem = float(np.std(scores, ddof=1) / math.sqrt(len(scores))) if len(scores) > 1 else 0.0
    return {"episodes": len(results), "mean_score": float(np.mean(scores)), "sem": sem,
            "max_tiles": {str(tile): tiles[tile] for tile in sorted(tiles)}, "episodes_detail": results}


def greedy_policy(model: Any, channels: int) -> Callable[[Any, Any], Any]:
    """The trained policy's greedy masked move on a batch of boards of tile exponents, for `evaluate_exact`: the
    boards encoded as the environment encodes them (`onehot_flat`: plane k marks the cells holding 2^k), then the
    policy network's logits, masked, and their argmax."""
    import torch

    planes = np.arange(channels, dtype=np.uint8)[None, :, None, None]

    def moves(boards: Any, masks: Any) -> Any:
        onehot = (boards[:, None, :, :] == planes).reshape(len(boards), -1).astype(np.float32)
        with torch.no_grad():
            features = model.policy.extract_features(torch.from_numpy(onehot), model.policy.pi_features_extractor)
            logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(features)).numpy()
        return np.where(masks, logits, -np.inf).argmax(axis=1).astype(np.int8)

    return moves


def load_solution(args: argparse.Namespace) -> Any:
    """The solved board of `--solution`, refused before training if it is not the board trained on."""
    solution = gym2048.Solution(args.solution)
    if (solution.rows, solution.cols) != (args.rows, args.cols):
        solution.close()
        raise SystemExit(f"error: --solution is a {solution.rows}x{solution.cols} board, the policy plays "
                         f"{args.rows}x{args.cols}")
    return solution


def exact(model: Any, solution: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The greedy policy's exact expected score on the solved board."""
    channels = int(np.prod(model.observation_space.shape)) // (args.rows * args.cols)
    log(f"[exact] the greedy policy on every board it reaches ({args.solution})")
    start = time.monotonic()
    report: dict[str, Any] = solution.evaluate_exact(greedy_policy(model, channels), name="maskable_ppo",
                                                     progress=True)
    log(f"[exact] done in {time.monotonic() - start:,.0f} s")
    return report


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    solution = load_solution(args) if args.solution else None
    model, trained, seconds, curve = train(args)
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

    policy = summary(play(trained_choice, seeds, args.rows, args.cols))
    baseline = summary(play(random_choice, seeds, args.rows, args.cols))
    result: dict[str, Any] = {
        "timesteps": trained, "seed": args.seed, "rows": args.rows, "cols": args.cols, "observation": OBSERVATION,
        "envs": args.envs, "n_steps": args.n_steps, "batch_size": args.batch_size, "epochs": args.epochs,
        "learning_rate": args.learning_rate, "gamma": args.gamma, "net": args.net, "reward": args.reward,
        "vec": args.vec, "train_seconds": seconds, "steps_per_second": trained / seconds,
        "eval_seeds": [seeds[0], seeds[-1]], "curve": curve, "maskable_ppo": policy, "random_legal": baseline}
    if solution is not None:
        result["exact"] = exact(model, solution, args)
        solution.close()
    if args.json:
        print(json.dumps(result))
    else:
        print(f"MaskablePPO on Gym2048 {args.rows}x{args.cols}: {trained:,} training steps ({trained / seconds:,.0f} "
              f"steps/s through {args.vec}, {args.envs} boards), seed {args.seed}; {len(seeds)} evaluation episodes "
              f"per agent on seeds {seeds[0]}…{seeds[-1]}")
        for name, stats in (("MaskablePPO (greedy)", policy), ("random legal agent", baseline)):
            tiles = ", ".join(f"{tile}: {count}" for tile, count in stats["max_tiles"].items())
            print(f"  {name:<21} mean score {stats['mean_score']:>9,.1f} ± {stats['sem']:,.1f}   largest tile {tiles}")
        if "exact" in result:
            report = result["exact"]
            print(f"  exact expected score of the greedy policy: {report['expected_score']:,.2f} = "
                  f"{100 * report['fraction_of_optimal']:.2f} % of optimal play ({report['optimal_score']:,.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

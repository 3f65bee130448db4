"""Memorize as a memory benchmark: sb3-contrib's RecurrentPPO (an LSTM) against a memoryless PPO, both trained on
the same cards with the same reward and budget, measured against the random player, perfect memory and the optimum.

    .venv-rl/bin/python Examples/python/memorize_rl.py --timesteps 500000 --eval-games 1000 [--json]

Both agents are Stable-Baselines3 code as it comes: `make_vec_env("Memorize-v0")` builds their environments,
with one wrapper that one-hot encodes each card's code (0 face down, 1 matched, 2 + c face up). They see only what
is face up now, so RecurrentPPO can learn to remember cards and PPO cannot: PPO at its best plays as the random
legal player does. The reward is the recommended one (docs/MEMORIZE.md, "Reinforcement learning"):
`mismatch_penalty = 1 / cards`, so a finished game returns `pairs − mismatches / cards`, and `max_steps = 20 ×
cards` bounds the episodes of a policy that turns face-up or matched cards (a no-op that counts as a step).

Each trained agent then plays `--eval-games` new games, sampling its actions (a memoryless policy that always took
its most likely action could turn the same two cards forever). Printed: each agent's mean moves per finished game
(± standard error), the games it finished within 5 × `max_steps`, and the fraction of the optimum (optimal moves /
mean moves, 1 for optimal play); the random legal and perfect-memory players (`g2048 eval`) and the exact optimum.
Needs torch and sb3-contrib: `bash Examples/python/rl-examples.sh` installs them in `.venv-rl`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import RecurrentPPO
from stable_baselines3 import PPO
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import gym2048  # noqa: F401 - registers Memorize-v0
from gym2048.client import find_binary


class OneHotCards(gymnasium.ObservationWrapper[np.ndarray, Any, np.ndarray]):
    """Each card's code as a one-hot row (cards × codes, float32): a network then tells contents apart instead of
    reading them as magnitudes."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        space = env.observation_space
        assert isinstance(space, gymnasium.spaces.Box)
        self.codes = int(space.high.max()) + 1
        self.observation_space = gymnasium.spaces.Box(0, 1, (int(np.prod(space.shape)) * self.codes,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.eye(self.codes, dtype=np.float32)[observation.reshape(-1)].reshape(-1)


class Progress(BaseCallback):
    """A line on stderr every tenth of the budget: the steps, the seconds, the mean return and length (in steps)
    of the last 100 training episodes."""

    def __init__(self, name: str, timesteps: int) -> None:
        super().__init__()
        self.name, self.every, self.next = name, max(1, timesteps // 10), max(1, timesteps // 10)
        self.start = time.perf_counter()

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if self.num_timesteps < self.next:
            return
        self.next += self.every
        episodes = list(self.model.ep_info_buffer or [])
        returns = f"return {np.mean([e['r'] for e in episodes]):.2f}, {np.mean([e['l'] for e in episodes]):.1f} " \
            "steps" if episodes else "no episode yet"
        print(f"[train] {self.name}: {self.num_timesteps} steps, {time.perf_counter() - self.start:.0f} s, {returns}",
              file=sys.stderr, flush=True)


def recommended(rows: int, cols: int) -> dict[str, Any]:
    """The reward and episode bound docs/MEMORIZE.md recommends for `rows × cols` cards."""
    cards = rows * cols
    return {"rows": rows, "cols": cols, "mismatch_penalty": 1 / cards, "max_steps": 20 * cards}


def environments(options: dict[str, Any], count: int, seed: int) -> Any:
    return make_vec_env("Memorize-v0", n_envs=count, seed=seed, env_kwargs=options, wrapper_class=OneHotCards)


def train(name: str, options: dict[str, Any], args: argparse.Namespace) -> tuple[BaseAlgorithm, float]:
    """`name` ("recurrent_ppo" or "ppo") trained for `args.timesteps` steps; returns the model and its seconds."""
    envs = environments(options, args.envs, args.seed)
    common = {"n_steps": 128, "batch_size": 256, "n_epochs": 4, "learning_rate": args.learning_rate, "gamma": 0.99,
              "ent_coef": 0.01, "seed": args.seed, "verbose": 0, "device": "cpu"}
    if name == "recurrent_ppo":
        model: BaseAlgorithm = RecurrentPPO("MlpLstmPolicy", envs, policy_kwargs={
            "lstm_hidden_size": args.hidden, "net_arch": [args.hidden]}, **common)
    else:
        model = PPO("MlpPolicy", envs, policy_kwargs={"net_arch": [args.hidden, args.hidden]}, **common)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=Progress(name, args.timesteps))
    seconds = time.perf_counter() - start
    envs.close()
    print(f"[train] {name}: {args.timesteps} steps in {seconds:.0f} s", file=sys.stderr)
    return model, seconds


def evaluate(model: BaseAlgorithm, options: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    """`games` new games of `model`, sampled actions, 16 at a time; each lane keeps its first games only (taking the
    games that end first would favour the short ones). Moves are counted over the finished games: with every game
    finished, their mean; otherwise a lower bound."""
    lanes = 16
    per_lane = -(-games // lanes)
    # A cap far above training's, so that games are not cut short just for being long (that would favour the
    # short ones too); only a policy that nearly stopped turning face-down cards is cut.
    envs = environments({**options, "max_steps": 5 * options["max_steps"]}, lanes, seed + 10_000)
    obs = envs.reset()
    state, starts = None, np.ones(lanes, dtype=bool)
    ended: list[list[tuple[bool, int]]] = [[] for _ in range(lanes)]
    while min(len(lane) for lane in ended) < per_lane:
        actions, state = model.predict(obs, state=state, episode_start=starts, deterministic=False)
        obs, _, dones, infos = envs.step(actions)
        starts = dones
        for lane in np.flatnonzero(dones):
            info = infos[lane]
            ended[lane].append((not info.get("TimeLimit.truncated", False), int(info["moves"])))
    envs.close()
    sample = [game for lane in ended for game in lane[:per_lane]]
    moves = np.array([m for finished, m in sample if finished], dtype=float)
    return {"games": len(sample), "finished": len(moves), **moments(moves)}


def moments(moves: np.ndarray) -> dict[str, Any]:
    if len(moves) == 0:
        return {"mean_moves": None, "moves_standard_error": None}
    error = float(moves.std(ddof=1) / np.sqrt(len(moves))) if len(moves) > 1 else 0.0
    return {"mean_moves": float(moves.mean()), "moves_standard_error": error}


def g2048_eval(agent: str, rows: int, cols: int, games: int) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(subprocess.run(
        [find_binary(), "eval", "--game", "memorize", "--agent", agent, "--rows", str(rows), "--cols", str(cols),
         "--games", str(games), "--json"], check=True, capture_output=True, text=True).stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3)
    parser.add_argument("--cols", type=int, default=4)
    parser.add_argument("--timesteps", type=int, default=500_000, help="training steps for each agent")
    parser.add_argument("--envs", type=int, default=16, help="environments each agent trains on")
    parser.add_argument("--hidden", type=int, default=64, help="units of each layer (and of the LSTM)")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args()
    if args.timesteps <= 0 or args.eval_games <= 0:
        parser.error(f"--timesteps and --eval-games must be positive, got {args.timesteps} and {args.eval_games}")
    torch.set_num_threads(1)
    options = recommended(args.rows, args.cols)
    perfect = g2048_eval("perfect", args.rows, args.cols, args.eval_games)
    optimal = perfect["optimal_moves"]
    result: dict[str, Any] = {"options": options, "timesteps": args.timesteps, "envs": args.envs,
                              "hidden": args.hidden, "learning_rate": args.learning_rate, "seed": args.seed, "optimal_moves": optimal,
                              "perfect_exact_moves": perfect["exact_moves"]}
    for name in ("recurrent_ppo", "ppo"):
        model, seconds = train(name, options, args)
        result[name] = {**evaluate(model, options, args.eval_games, args.seed), "train_seconds": seconds}
    for agent in ("random", "perfect"):
        measured = perfect if agent == "perfect" else g2048_eval(agent, args.rows, args.cols, args.eval_games)
        result[agent] = {"games": measured["games"], "finished": measured["finished"],
                         "mean_moves": measured["mean_moves"], "moves_standard_error": measured["moves_standard_error"]}
    for name in ("recurrent_ppo", "ppo", "random", "perfect"):
        mean = result[name]["mean_moves"]
        result[name]["fraction_of_optimum"] = optimal / mean if mean else None
    if args.json:
        print(json.dumps(result))
        return
    print(f"Memorize {args.rows}x{args.cols} ({perfect['pairs']} pairs), mismatch_penalty 1/{args.rows * args.cols}, "
          f"max_steps {options['max_steps']}; {args.timesteps} training steps each, {args.eval_games} games each")
    for name in ("recurrent_ppo", "ppo", "random", "perfect"):
        row = result[name]
        moves = "no game finished" if row["mean_moves"] is None else \
            f"{row['mean_moves']:7.2f} ± {row['moves_standard_error']:.2f} moves, {row['fraction_of_optimum']:.3f} of optimum"
        print(f"  {name:14} {moves}, {row['finished']}/{row['games']} finished")
    print(f"  {'optimal':14} {optimal:7.2f} moves (exact)")


if __name__ == "__main__":
    main()

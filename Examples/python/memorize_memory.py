"""What memory is worth in Memorize: a memoryless agent against one that remembers what it saw.

    python3 Examples/python/memorize_memory.py [--games 2000] [--rows 4 --cols 4]

Both agents play `gymnasium.make_vec("Memorize-v0")` and see only its observations (one code per card: 0 face
down, 1 matched, 2 + c face up showing content c). The memoryless one turns a random face-down card, as any policy
without memory must once the cards it saw are face down again. The remembering one keeps what every face-up card
showed and plays the perfect-memory rule: a known pair at once; else an unseen card; then its partner if known,
else another unseen card. Printed: each agent's mean moves to finish (± standard error), and the exact optimum of
optimal play with perfect memory from `g2048 eval --game memorize --json`.

Run it with the repository's Python (`.venv/bin/python`, which `bash Tests/run-all.sh` sets up).
"""

from __future__ import annotations

import argparse
import json
import subprocess

import gymnasium
import numpy as np

import gym2048  # noqa: F401 - registers Memorize-v0
from gym2048.client import find_binary


class Remembering:
    """The perfect-memory rule, from observations alone: a card's content is remembered once it is seen face up."""

    def __init__(self, cards: int, rng: np.random.Generator) -> None:
        self.known = np.full(cards, -1)
        self.rng = rng

    def act(self, codes: np.ndarray, mask: np.ndarray) -> int:
        face_up = np.flatnonzero(codes >= 2)
        self.known[face_up] = codes[face_up] - 2
        legal = np.flatnonzero(mask)
        known = {card: self.known[card] for card in legal if self.known[card] >= 0}
        unseen = [card for card in legal if self.known[card] < 0]
        if len(face_up) == 1:  # the second card of a move: the partner if known, else an unseen card
            partner = [card for card, content in known.items() if content == self.known[face_up[0]]]
            if partner:
                return int(partner[0])
        else:  # the first card: a known pair, else an unseen card
            contents = list(known.values())
            for card, content in known.items():
                if contents.count(content) == 2:
                    return int(card)
        return int(self.rng.choice(unseen if unseen else legal))


def play(agent: str, games: int, rows: int, cols: int, seed: int) -> tuple[float, float]:
    """Mean moves to finish `games` games of `agent`, and the standard error, 64 games at a time. Each lane keeps
    its first games only: taking the games that end first would favour the short ones."""
    lanes = 64
    per_lane = -(-games // lanes)
    envs = gymnasium.make_vec("Memorize-v0", num_envs=lanes, rows=rows, cols=cols)
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    players = [Remembering(rows * cols, rng) for _ in range(lanes)]
    moves: list[list[int]] = [[] for _ in range(lanes)]
    while min(len(lane) for lane in moves) < per_lane:
        actions = np.zeros(lanes, dtype=np.int64)
        for lane in range(lanes):
            codes, mask = obs[lane].reshape(-1), infos["action_mask"][lane]
            if not mask.any():  # finished: the next step starts it again (next_step autoreset)
                players[lane] = Remembering(rows * cols, rng)
                continue
            actions[lane] = players[lane].act(codes, mask) if agent == "remembering" else rng.choice(np.flatnonzero(mask))
        obs, _, terminated, _, infos = envs.step(actions)
        for lane in np.flatnonzero(terminated):
            moves[lane].append(int(infos["moves"][lane]))
    envs.close()
    sample = np.array([m for lane in moves for m in lane[:per_lane]], dtype=float)
    return float(sample.mean()), float(sample.std(ddof=1) / np.sqrt(len(sample)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=4)
    parser.add_argument("--cols", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    exact = json.loads(subprocess.run(
        [find_binary(), "eval", "--game", "memorize", "--rows", str(args.rows), "--cols", str(args.cols), "--games", "1",
         "--json"], check=True, capture_output=True, text=True).stdout)
    games = -(-args.games // 64) * 64
    print(f"Memorize {args.rows}x{args.cols} ({exact['pairs']} pairs), {games} games each")
    for agent in ("memoryless", "remembering"):
        mean, error = play(agent, games, args.rows, args.cols, args.seed)
        print(f"  {agent:12} {mean:8.2f} ± {error:.2f} moves")
    print(f"  {'optimal':12} {exact['optimal_moves']:8.2f} moves (exact, perfect memory)")


if __name__ == "__main__":
    main()

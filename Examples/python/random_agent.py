"""Random legal play through `g2048 serve`, with nothing but the standard library (the package's client).

    python3 Examples/python/random_agent.py --episodes 20 --seed 42 [--rows 4 --cols 4]
"""

import argparse
import os
import random
import sys

# The package in the repository's python/ folder (this script runs from a clone without installing), else the
# installed one.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python"))
from gym2048.client import G2048  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rows", type=int, default=4)
    parser.add_argument("--cols", type=int, default=4)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    scores, best = [], 0
    with G2048(rows=args.rows, cols=args.cols) as env:
        for episode in range(args.episodes):
            result = env.reset(seed=args.seed + episode)
            info = result["info"]
            done = False
            while not done:
                legal = [a for a, ok in enumerate(info["action_mask"]) if ok]
                step = env.step(rng.choice(legal))
                info = step["info"]
                done = step["terminated"] or step["truncated"]
            scores.append(info["score"])
            best = max(best, info["max_tile"])
        print(env.render())
    print(f"{args.episodes} episodes on {args.rows}x{args.cols}: mean score {sum(scores) / len(scores):.1f}, "
          f"best tile {best}")


if __name__ == "__main__":
    main()

"""Games records for the ranking's tests: games of a protocol played by a seeded random player, written in the
games record format (one header line, one line per game): by `gym2048.evaluate(record=…)` where the engine
writes records, else by `play` here."""

from __future__ import annotations

import json
from typing import Any, Optional

import numpy as np

from gym2048.client import splitmix64
from gym2048.rank.fields import ACTION_ALPHABET


def protocol(name: str) -> dict[str, Any]:
    import gym2048
    found: dict[str, Any] = next(p for p in gym2048.protocols() if p["name"] == name)
    return found


def play(name: str, player_seed: int, games: Optional[int] = None) -> list[dict[str, Any]]:
    """The protocol's games (the first `games`), each played by random legal moves from `player_seed`'s stream."""
    from gym2048.game_envs import GameEnv
    spec = protocol(name)
    rng = np.random.default_rng(player_seed)
    options = {key: value for key, value in spec["config"].items() if value is not None}
    env = GameEnv(game=spec["game"], **options)
    out = []
    try:
        for index, seed in enumerate(splitmix64(spec["seed"], spec["games"] if games is None else games)):
            _, info = env.reset(seed=seed)
            actions, total, done = [], 0.0, False
            while not done:
                legal = np.flatnonzero(env.action_masks())
                if not len(legal):
                    break
                action = int(rng.choice(legal))
                _, reward, terminated, truncated, info = env.step(action)
                actions.append(ACTION_ALPHABET[action])
                total += float(reward)
                done = terminated or truncated
            score = info["score"] if "score" in info else total
            out.append({"type": "game", "index": index, "seed": seed, "steps": len(actions), "score": score,
                        "outcome": "terminated" if done else "stopped", "end": {"score": score},
                        "actions": "".join(actions)})
    finally:
        env.close()
    return out


def record(name: str, games: list[dict[str, Any]], player: str = "random", **header: Any) -> bytes:
    """The record file's bytes for `games` under protocol `name` (`header` overrides header members)."""
    spec = protocol(name)
    first = {"type": "games", "format": "gym2048-games", "version": 1, "game": spec["game"], "protocol": name,
             "config": spec["config"], "player": player, "games": len(games), **header}
    return "".join(json.dumps(line) + "\n" for line in [first, *games]).encode()


def random_policy(seed: int) -> Any:
    """A policy for `gym2048.evaluate`: a uniformly random legal move, from `seed`'s stream."""
    rng = np.random.default_rng(seed)

    def policy(observations: Any, masks: Any) -> Any:
        return (rng.random(masks.shape) * masks).argmax(axis=1)
    return policy


def random_record(name: str, player_seed: int, path: str) -> bytes:
    """The bytes of a record of protocol `name` played by a random player from `player_seed` (written to `path`)."""
    import gym2048
    if "record" in gym2048.evaluate.__code__.co_varnames and protocol(name)["game"] == "2048":
        gym2048.evaluate(random_policy(player_seed), protocol=name, record=path, name=f"random {player_seed}")
        with open(path, "rb") as written:
            return written.read()
    data = record(name, play(name, player_seed), player=f"random {player_seed}")
    with open(path, "wb") as out:
        out.write(data)
    return data


def small_protocol() -> str:
    """The protocol whose records are quickest to make and check: one declared for tests, else 2048 on 3x3."""
    import gym2048
    names = [p["name"] for p in gym2048.protocols()]
    return next((name for name in names if name.endswith("-test")), "2048-3x3-v1")

"""TEMPORARY stand-in for the lead's `gym2048.verify_games` and `gym2048.protocols` (Swift, through the C ABI),
written to the contract so the service can be tested before they land. Removed before the branch is handed over.
Run as a script, it installs them into `gym2048` and runs `python -m gym2048.rank` with the arguments."""

from __future__ import annotations

import json
import sys
from typing import Any, Optional

import gym2048
from gym2048.client import splitmix64
from gym2048.rank.replay import actions_of
from gym2048.rank.store import summary

CONFIG3 = {"rows": 3, "cols": 3, "spawn_four_probability": 0.1, "initial_tiles": 2, "win_tile": None,
           "max_steps": None, "invalid_action": "noop", "invalid_action_penalty": 0}
PROTOCOLS: list[dict[str, Any]] = [
    {"name": "2048-3x3-v1", "version": 1, "game": "2048", "config": CONFIG3, "seed": 2048, "games": 1000,
     "summary": "2048 on 3x3"},
    {"name": "2048-3x3-test", "version": 1, "game": "2048", "config": CONFIG3, "seed": 7, "games": 12,
     "summary": "2048 on 3x3, 12 games (tests)"},
    {"name": "memorize-2x2-test", "version": 1, "game": "memorize",
     "config": {"rows": 2, "cols": 2, "reveal_seen": False, "mismatch_penalty": 0.0, "max_steps": None,
                "invalid_action": "noop", "invalid_action_penalty": 0}, "seed": 3, "games": 4, "summary": "tests"},
]


class RecordRefused(ValueError):
    pass


def protocols() -> list[dict[str, Any]]:
    return [dict(p) for p in PROTOCOLS]


def verify_games(data: bytes, protocol: Optional[str] = None) -> dict[str, Any]:
    if not data:
        raise RecordRefused("an empty record")
    if not data.endswith(b"\n"):
        raise RecordRefused("truncated record: the last line is incomplete")
    lines = data.decode("utf-8", "replace").split("\n")[:-1]
    try:
        parsed = [json.loads(line) for line in lines]
    except ValueError as error:
        raise RecordRefused(f"not valid JSON: {error}") from None
    if not parsed or not isinstance(parsed[0], dict) or parsed[0].get("format") != "gym2048-games":
        raise RecordRefused("line 1: not a gym2048-games header")
    header, games = parsed[0], parsed[1:]
    name = header.get("protocol")
    if name is None:
        raise RecordRefused("not played under a protocol")
    spec = next((p for p in PROTOCOLS if p["name"] == name), None)
    if spec is None:
        raise RecordRefused(f"unknown protocol {name}")
    if header.get("config") != spec["config"]:
        raise RecordRefused(f"the config is not {name}'s (rows, cols, ...)")
    if len(games) != spec["games"] or header.get("games") != spec["games"]:
        raise RecordRefused(f"the record holds {len(games)} games; {name} has {spec['games']}")
    seeds = splitmix64(spec["seed"], spec["games"])
    results = []
    from gym2048.game_envs import GameEnv
    options = {k: v for k, v in spec["config"].items() if v is not None}
    for i, game in enumerate(games):
        if not isinstance(game, dict) or game.get("index") != i:
            raise RecordRefused(f"line {i + 2}: not game {i}")
        if game.get("seed") != seeds[i]:
            raise RecordRefused(f"game {i}: seed {game.get('seed')} is not the protocol's")
        env = GameEnv(game=spec["game"], **options)
        try:
            obs, info = env.reset(seed=seeds[i])
            total, done, steps = 0.0, False, 0
            for action in actions_of(str(game.get("actions", ""))):
                if done or not env.action_masks()[action]:
                    raise RecordRefused(f"game {i}: action {steps} is not legal")
                obs, reward, term, trunc, info = env.step(action)
                total += float(reward)
                steps += 1
                done = term or trunc
            score = info["score"] if "score" in info else total
        finally:
            env.close()
        if score != game.get("score") or steps != game.get("steps"):
            raise RecordRefused(f"game {i} (seed {seeds[i]}): the record says score {game.get('score')}, "
                                f"the replay gives {score}")
        results.append({"index": i, "seed": seeds[i], "score": score, "steps": steps,
                        "outcome": "terminated" if done else "stopped", "actions": game["actions"]})
    stats = summary([r["score"] for r in results], [r["steps"] for r in results])
    half = 1.96 * stats["standard_error"]
    return {"game": spec["game"], "protocol": name, "config": spec["config"], "player": header.get("player"),
            "games": len(results), "steps": int(stats["steps"]),
            "summary": {"mean": stats["mean"], "standard_error": stats["standard_error"],
                        "ci95": [stats["mean"] - half, stats["mean"] + half], "median": stats["median"],
                        "min": stats["min"], "max": stats["max"], "reach": {}},
            "results": results}


def install() -> None:
    if not hasattr(gym2048, "verify_games"):
        setattr(gym2048, "verify_games", verify_games)
        setattr(gym2048, "protocols", protocols)
        setattr(gym2048, "RecordRefused", RecordRefused)


if __name__ == "__main__":
    install()
    from gym2048.rank.__main__ import main
    sys.exit(main(sys.argv[1:]))

"""A stored game played again in the engine, in this process: the frames of the replay viewer, and the boards and
actions the fraction of optimal play is computed from. Nothing here names a game: the game and its options are
the protocol's, the actions' names the game's `spec`."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import numpy.typing as npt

from ..games_record import actions_of


def _env(protocol: Mapping[str, Any], render: bool) -> Any:
    from ..game_envs import GameEnv
    options = {name: value for name, value in protocol["config"].items() if value is not None}
    return GameEnv(game=protocol["game"], render_mode="ansi" if render else None, **options)


def _labels(text: str, shape: tuple[int, ...]) -> list[list[str]]:
    """The cells' words in the game's own text rendering when it is one line of words per row of the grid (2048's
    tiles, a card's face); else empty, and the viewer shows the observation's values."""
    lines = [line.split() for line in text.strip("\n").split("\n")]
    if len(shape) == 2 and len(lines) == shape[0] and all(len(line) == shape[1] for line in lines):
        return lines
    return []


def frames(protocol: Mapping[str, Any], seed: int, actions: str) -> dict[str, Any]:
    """Every position of one game, from the start (`seed` as decimal text): per frame the `step`, the `action` taken to reach it (its
    number and name; None at the start), the observation `grid`, the cells' `labels` and the `text` the game
    renders, the step's `reward`, and the `score` so far (the game's own `score` when its infos give one, else the
    sum of the rewards)."""
    env = _env(protocol, render=True)
    try:
        names = env.spec_info["actions"]
        name_of = (lambda action: str(names[action])) if isinstance(names, list) else str
        observation, info = env.reset(seed=seed)
        total = 0.0

        def frame(step: int, action: Any, reward: float) -> dict[str, Any]:
            text = str(env.render())
            grid = np.asarray(observation)
            score = info["score"] if "score" in info else total
            return {"step": step, "action": action, "action_name": None if action is None else name_of(action),
                    "grid": grid.tolist(), "labels": _labels(text, grid.shape), "text": text, "reward": reward,
                    "score": score}

        out = [frame(0, None, 0.0)]
        for step, action in enumerate(actions_of(actions), start=1):
            observation, reward, _, _, info = env.step(action)
            total += float(reward)
            out.append(frame(step, action, float(reward)))
        # The seed as decimal text: 64 bits are beyond JavaScript's exact integers.
        return {"game": protocol["game"], "config": dict(protocol["config"]), "seed": str(seed), "frames": out}
    finally:
        env.close()


def positions(protocol: Mapping[str, Any], seed: int, actions: str) -> tuple[npt.NDArray[Any], list[int]]:
    """One game's observations, the start's first and one after each action (the last is its final position),
    and its actions as numbers: position t is the one action t was taken in."""
    env = _env(protocol, render=False)
    try:
        moves = actions_of(actions)
        observation, _ = env.reset(seed=seed)
        seen = [observation]
        for action in moves:
            seen.append(env.step(action)[0])
        return np.asarray(seen), moves
    finally:
        env.close()

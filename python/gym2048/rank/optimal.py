"""The fraction of optimal play of a submission on a solved board, from its replayed games.

By the performance-difference identity, a policy's expected score is V*(s0) − E[Σ_t (V*(s_t) − Q*(s_t, a_t))]:
the optimal value of the start less the regret of each move it made. So over the submitted games

    fraction = mean_g (V*(s0_g) − Σ_t regret_{g,t}) / mean_g V*(s0_g)

is exactly 1 for optimal play (every regret 0) and otherwise an unbiased estimate of the exact fraction
`g2048 eval --exact` computes by enumerating every board. The share of the moves whose regret is not 0 is kept
beside it.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import numpy as np

from .replay import positions

#: A move is not optimal when it is worth less than the best by more than this share of the best (at least 1), as
#: the engine's exact evaluation counts them (the values are float sums of rewards).
_TOLERANCE = 1e-6


def solution_fits(solution: Any, protocol: Mapping[str, Any]) -> Optional[str]:
    """None when `solution` (a `gym2048.Solution`) solves the protocol's board for its score under its rules,
    else why not (solutions are of the engine's default game)."""
    from ..native import games_table
    solved = games_table()[0]["name"]
    if protocol["game"] != solved:
        return f"a solution is of {solved}; the protocol plays {protocol['game']}"
    if solution.objective != "score":
        return f"it values the {solution.objective} objective, not the score"
    config = protocol["config"]
    for name, value in solution.rules.items():
        if config.get(name) != value:
            return f"its {name} is {value!r}, the protocol's {config.get(name)!r}"
    return None


def optimality(solution: Any, protocol: Mapping[str, Any], results: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """`fraction` of optimal play and the share of `suboptimal_moves` of the replayed games `results` (each with
    its `seed` and `actions`), by the solution's action values."""
    starts: list[Any] = []
    boards: list[Any] = []
    actions: list[int] = []
    owners: list[int] = []
    for number, game in enumerate(results):
        seen, moves = positions(protocol, int(game["seed"]), str(game["actions"]))
        starts.append(seen[0])
        boards.extend(seen[:-1])
        actions.extend(moves)
        owners.extend([number] * len(moves))
    start_values = solution.values(np.asarray(starts))
    regret_of_game = np.zeros(len(results))
    suboptimal = 0
    if boards:
        values = solution.action_values(np.asarray(boards))
        chosen = values[np.arange(len(actions)), np.asarray(actions)]
        best = np.nanmax(values, axis=1)
        regrets = best - chosen
        np.add.at(regret_of_game, np.asarray(owners), regrets)
        suboptimal = int(np.count_nonzero(regrets > _TOLERANCE * np.maximum(1.0, best)))
    optimal = float(np.mean(start_values))
    return {"fraction": float(np.mean(start_values - regret_of_game)) / optimal if optimal else 1.0,
            "suboptimal_moves": suboptimal / len(boards) if boards else 0.0}

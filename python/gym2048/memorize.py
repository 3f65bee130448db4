"""`MemorizeEnv` and `MemorizeVectorEnv`: Memorize, the memory card game, by the generic classes of `games`.

    import gymnasium, gym2048
    env = gymnasium.make("Memorize-v0", rows=4, cols=4)
    envs = gymnasium.make_vec("Memorize-v0", num_envs=8)

Kept for the code that imports them: they are `GameEnv` and `GameVectorEnv` with `game="memorize"`. The keyword
options are the engine's Memorize options (`rows`, `cols`, `reveal_seen`, `mismatch_penalty`, `max_steps`; and
`autoreset_mode` for the vector), checked there. docs/MEMORIZE.md has the rules and the codes of an observation.
"""

from __future__ import annotations

from typing import Any, Optional

from .game_envs import GameEnv, GameVectorEnv

GAME = "memorize"


def _no_game(options: dict[str, Any], name: str) -> None:
    if "game" in options:
        raise TypeError(f"{name} plays {GAME}: game is fixed (GameEnv takes any game)")


class MemorizeEnv(GameEnv):
    """One game of Memorize (`GameEnv(game="memorize")`): observation `(rows, cols)` uint8 codes, action a card
    `Discrete(rows·cols)`, `info["action_mask"]` the face-down cards."""

    def __init__(self, render_mode: Optional[str] = None, backend: str = "inprocess", binary: Optional[str] = None,
                 **options: Any) -> None:
        _no_game(options, type(self).__name__)
        super().__init__(GAME, render_mode=render_mode, backend=backend, binary=binary, **options)


class MemorizeVectorEnv(GameVectorEnv):
    """`num_envs` games of Memorize stepped together by the engine (`GameVectorEnv(game="memorize")`)."""

    def __init__(self, num_envs: int = 1, render_mode: Optional[str] = None, backend: str = "inprocess",
                 binary: Optional[str] = None, **options: Any) -> None:
        _no_game(options, type(self).__name__)
        super().__init__(GAME, num_envs=num_envs, render_mode=render_mode, backend=backend, binary=binary, **options)

"""gym2048: the game 2048 as a Gymnasium environment, on the Swift Gym2048 engine (in-process, or `g2048 serve`).

    import gymnasium, gym2048
    env = gymnasium.make("Gym2048-v0", rows=4, cols=4)                      # one board
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=256)                   # 256 boards, one engine call a step
    gym2048.options()                                                       # the engine's options, with their help
    gym2048.TrainedPlayer("weights.bin").moves(boards)                      # a `g2048 train` network, in-process
    gym2048.evaluate(policy, games=1000, seed=1)                            # `g2048 eval --json`'s report
    gym2048.Learner(rows=4).train(games=1000)                               # `g2048 train`'s learner, in-process

Importing the package registers `Gym2048-v0` (also reachable as `gymnasium.make("gym2048:Gym2048-v0")`) and
one id for every other game the engine serves, `{Name}-v0`, made by the generic `GameEnv` and `GameVectorEnv`:
`Memorize-v0`, the memory card game (`gymnasium.make("Memorize-v0", rows=4, cols=4)`). `gym2048.games()` lists
the games with their options and ids.
The client (`gym2048.client`) needs only the standard library; the environments need numpy and gymnasium,
and are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import G2048, G2048ConnectionError, G2048Error, G2048OptionError, G2048ParamsError, find_binary
from .records import RecordMismatch, read_record, replay_record

if TYPE_CHECKING:
    from .env import Gym2048Env
    from .game_envs import GameEnv, GameVectorEnv, games
    from .memorize import MemorizeEnv, MemorizeVectorEnv
    from .games_record import RecordRefused, protocols, verify_games
    from .learner import Learner
    from .players import Solution, TrainedPlayer, evaluate
    from .vector import Gym2048VectorEnv

def _version() -> str:
    """The installed distribution's version (the library's, `.devN+g<commit>` when built from a clone)."""
    from importlib import metadata
    try:
        return metadata.version("gym2048")
    except metadata.PackageNotFoundError:  # run from a clone without installing
        return "unknown"


__version__ = _version()

__all__ = ["G2048", "G2048ConnectionError", "G2048Error", "G2048OptionError", "G2048ParamsError", "GameEnv", "GameVectorEnv",
           "Gym2048Env", "Gym2048VectorEnv", "Learner", "games",
           "MemorizeEnv", "MemorizeVectorEnv", "RecordMismatch", "RecordRefused", "Solution", "TrainedPlayer", "evaluate", "find_binary", "options", "protocols", "read_record", "replay_record", "verify_games",
           "__version__"]

ENV_ID = "Gym2048-v0"
MEMORIZE_ENV_ID = "Memorize-v0"


def options() -> list[dict[str, Any]]:
    """The engine's options, as its one table declares them: for each its `name`, `type` (integer, number, choice
    or list), bounds or `choices`, whether it may be null (off), its `default`, whether it is a rules option, and
    its `help`. Every keyword of the environments is one of these (or `render_mode`, `backend`, `binary`)."""
    from .native import options_table
    return options_table()


def __getattr__(name: str) -> Any:
    # The environments import numpy and gymnasium: only when asked for, so the client stays stdlib-only.
    if name == "Gym2048Env":
        from .env import Gym2048Env
        return Gym2048Env
    if name == "Gym2048VectorEnv":
        from .vector import Gym2048VectorEnv
        return Gym2048VectorEnv
    if name in ("GameEnv", "GameVectorEnv", "games"):
        from . import game_envs
        return getattr(game_envs, name)
    if name in ("MemorizeEnv", "MemorizeVectorEnv"):
        from . import memorize
        return getattr(memorize, name)
    if name in ("RecordRefused", "protocols", "verify_games"):
        from . import games_record
        return getattr(games_record, name)
    if name == "Learner":
        from .learner import Learner
        return Learner
    if name in ("TrainedPlayer", "Solution", "evaluate"):
        from . import players
        return getattr(players, name)
    raise AttributeError(f"module 'gym2048' has no attribute {name!r}")


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # a script using only the client, run from the repository without gymnasium
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="gym2048.env:Gym2048Env",
                           vector_entry_point="gym2048.vector:Gym2048VectorEnv")
    # Every other game the engine lists, by the generic classes (gym2048/game_envs.py): "memorize" is Memorize-v0.
    from .native import games_table
    from .game_envs import env_id
    try:
        names = [game["name"] for game in games_table()]
    except G2048Error:  # no libgym2048 here: only 2048's classes, whose server backend needs none
        return
    for name in names:
        if name != "2048" and env_id(name) not in gymnasium.registry:
            gymnasium.register(id=env_id(name), entry_point="gym2048.game_envs:GameEnv",
                               vector_entry_point="gym2048.game_envs:GameVectorEnv", kwargs={"game": name})


_register()

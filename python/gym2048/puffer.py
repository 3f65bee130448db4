"""`Gym2048Puffer`: Gym2048 as a native PufferLib environment (`pufferlib.PufferEnv`), no emulation layer.

    import pufferlib.vector
    from gym2048.puffer import Gym2048Puffer
    envs = pufferlib.vector.make(Gym2048Puffer, env_kwargs={"num_envs": 1024}, backend=pufferlib.vector.Serial)
    observations, infos = envs.reset(seed=1)
    observations, rewards, terminals, truncations, infos = envs.step(actions)

One engine session of `num_envs` boards (PufferLib's agents) writes its observations and end flags straight into
PufferLib's shared buffers (`buf`, given by its vectorization); rewards are the engine's int64, cast into PufferLib's
float32 column, and its int32 actions are narrowed to the engine's bytes. A finished board is reset in the same
step (the engine's "same_step" autoreset), as PufferLib expects of its environments. Every other keyword is an
engine option (`gym2048.options()`), checked by the engine; the default observation is the tile exponents,
uint8 (rows, cols), and `observation="onehot_flat"` gives a float32 vector for a network.

Every `log_interval` steps, `step` returns one info dict for PufferLib's logger: the mean `score`, `max_tile`
and `episode_length` of the episodes that ended since the last one, and their count `n`.

Needs `pufferlib-core` (or `pufferlib`) and torch, which `import pufferlib` imports (any build: the CPU one is
enough): install torch, then `pip install --no-deps pufferlib-core psutil rich` (docs/PYTHON.md); without them
this module's import is a ModuleNotFoundError that says so.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces

from .client import ACTION_NAMES
from .env import observation_space
from .handles import HandleOwner
from .integers import action_array, integer
from .native import InProcessSession
from .optional import missing

try:
    import pufferlib
except ModuleNotFoundError as error:
    raise missing("gym2048.puffer", "PufferLib and torch (import pufferlib imports torch)",
                  "`pip install --no-deps pufferlib-core psutil rich`", error) from None

#: The info the engine records for the log: what ended episodes reached.
_LOGGED = ("score", "max_tile", "steps")


class Gym2048Puffer(HandleOwner, pufferlib.PufferEnv):  # type: ignore[misc]
    """`num_envs` 2048 boards as PufferLib agents, stepped by one engine call into PufferLib's buffers. Seeds and
    actions are integers exactly: a float, bool or text seed, and actions of another dtype or shape or out of
    0..3, are a TypeError or ValueError (nothing is cast, rounded or broadcast)."""

    def _copy_advice(self) -> str:
        return "make another Gym2048Puffer with the same arguments (PufferLib's vectorization makes one per worker)"

    def __init__(self, num_envs: int = 1, log_interval: int = 128, buf: Optional[dict[str, Any]] = None,
                 seed: int = 0, **options: Any) -> None:
        if integer(num_envs, "num_envs") < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        seed = integer(seed, "seed")
        if integer(log_interval, "log_interval") < 1:
            raise ValueError(f"log_interval must be a positive integer, got {log_interval!r}")
        settings = {"observation": "exponents", **options, "num_envs": int(num_envs), "autoreset_mode": "same_step",
                    "info": list(_LOGGED)}
        # The spec first (a session of the same options), so that PufferLib allocates buffers of the right shape.
        probe = InProcessSession({**settings, "num_envs": 1})
        spec = probe.spec_info
        probe.close()
        self.spec_info = {**spec, "num_envs": int(num_envs)}
        self.single_observation_space = observation_space(spec)
        self.single_action_space: spaces.Space[Any] = spaces.Discrete(4)
        self.num_agents = int(num_envs)
        self.log_interval = int(log_interval)
        super().__init__(buf)
        outputs = {"observations": self.observations, "terminations": self.terminals,
                   "truncations": self.truncations}
        self._session = InProcessSession(settings, outputs=outputs) if num_envs > 1 else None
        # One board: the engine runs a single environment (no vector autoreset); the wrapper resets it.
        self._single = InProcessSession(settings, outputs=outputs) if num_envs == 1 else None
        self._seed = seed
        self._tick = 0
        self._ended: list[np.ndarray] = []

    def _engine(self) -> InProcessSession:
        session = self._session or self._single
        assert session is not None
        return session

    def reset(self, seed: Optional[int] = None) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """Reset every board: `seed` (default: the `seed` PufferLib gave this environment) seeds board i as the
        vector environment's `reset(seed=seed)` does."""
        engine = self._engine()
        engine.reset({"seed": self._seed if seed is None else integer(seed, "seed")}, lambda: None)
        self.rewards[:] = 0
        self._tick = 0
        self._ended = []
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                  list[dict[str, Any]]]:
        """Step every board with its action (0 up, 1 right, 2 down, 3 left) into the shared buffers."""
        engine = self._engine()
        engine.step(action_array(actions, self.num_agents, 3, ACTION_NAMES), lambda: None)
        np.copyto(self.rewards, engine.rewards, casting="unsafe")
        if self._single is not None and (self.terminals[0] or self.truncations[0]):
            self._record(np.array([True]), self._single.columns)
            flags = (bool(self.terminals[0]), bool(self.truncations[0]))
            self._single.reset({}, lambda: None)  # the stream goes on, as a vector's autoreset does
            self.terminals[0], self.truncations[0] = flags
        elif engine.finals is not None and engine.finals.any():
            self._record(engine.finals, engine.final_columns)
        self._tick += 1
        infos: list[dict[str, Any]] = []
        if self._tick % self.log_interval == 0 and self._ended:
            ended = np.concatenate(self._ended)
            infos.append({"score": float(ended[:, 0].mean()), "max_tile": float(ended[:, 1].mean()),
                          "episode_length": float(ended[:, 2].mean()), "n": int(len(ended))})
            self._ended = []
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def _record(self, finished: np.ndarray, columns: dict[str, np.ndarray]) -> None:
        index = np.flatnonzero(finished)
        self._ended.append(np.stack([columns["scores"][index], columns["max_tiles"][index],
                                     columns["steps"][index]], axis=1))

    def close(self) -> None:
        """Release the engine session."""
        for session in (self._session, self._single):
            if session is not None:
                session.close()

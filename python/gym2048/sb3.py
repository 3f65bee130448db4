"""`Gym2048SB3VecEnv`: Stable-Baselines3's `VecEnv` over one batched engine call per step.

    from sb3_contrib import MaskablePPO
    from gym2048.sb3 import Gym2048SB3VecEnv
    envs = Gym2048SB3VecEnv(64, observation="onehot_flat")
    model = MaskablePPO("MlpPolicy", envs, seed=1).learn(100_000)

SB3 and sb3-contrib's algorithms take it as any `VecEnv` (`DummyVecEnv` steps one Python environment after another;
this steps all of them in one engine call): finished boards are reset at once, with `terminal_observation`,
`TimeLimit.truncated` and Monitor's `episode` statistics (`r`, `l`, `t`) in their info, so SB3's logger reports
`ep_rew_mean` and `ep_len_mean` without a `VecMonitor`. `action_masks()` (and `env_method("action_masks")`) give
MaskablePPO the legal moves of every observation. `seed(s)` makes the next reset seed environment i with `s + i`,
as SB3's own vectorizations do (and as `Gym2048Env.reset(seed=s + i)` would).

Every keyword but `render_mode`, `backend` and `binary` is an engine option (`gym2048.options()`); the default
observation is `"onehot_flat"`, a float32 vector a `MlpPolicy` takes as it is.
"""

from __future__ import annotations

import copy
import functools
import time
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from .integers import optional_integer
from .optional import missing
from .vector import Gym2048VectorEnv

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ModuleNotFoundError as error:
    raise missing("gym2048.sb3", "Stable-Baselines3 and torch", "`pip install sb3-contrib` (Stable-Baselines3 and "
                  "MaskablePPO)", error) from None

Indices = Union[None, int, Iterable[int]]

#: The methods each environment has (`env_method`), computed for the whole batch in one engine call.
_METHODS = ("action_masks", "afterstates", "get_state", "render")

#: The info the engine reports for SB3: the masks, and what an ended episode reached.
_INFO = ["action_mask", "score", "max_tile"]


class Gym2048SB3VecEnv(VecEnv):  # type: ignore[misc]
    """`num_envs` 2048 boards as one Stable-Baselines3 `VecEnv` (same-step autoreset, as SB3 expects)."""

    def __init__(self, num_envs: int, *, render_mode: Optional[str] = None, backend: str = "inprocess",
                 binary: Optional[str] = None, **options: Any) -> None:
        settings = {"observation": "onehot_flat", **options, "autoreset_mode": "same_step", "info": _INFO}
        self.envs = Gym2048VectorEnv(num_envs, render_mode, backend=backend, binary=binary, **settings)
        self._returns = np.zeros(num_envs, np.float64)
        self._lengths = np.zeros(num_envs, np.int64)
        self._started = time.perf_counter()
        self._actions: Optional[npt.NDArray[Any]] = None
        super().__init__(num_envs, self.envs.single_observation_space, self.envs.single_action_space)

    # -- SB3's VecEnv ----------------------------------------------------------------------------------
    def reset(self) -> npt.NDArray[Any]:
        """Reset every board, with the seeds and options set since the last reset (SB3's `seed`/`set_options`)."""
        seeds = None if all(seed is None for seed in self._seeds) else list(self._seeds)
        options = self._options[0] if self._options and self._options[0] else None
        if options is not None and any(option != options for option in self._options):
            raise ValueError("set_options: every environment of a Gym2048SB3VecEnv resets with the same options")
        observations, infos = self.envs.reset(seed=seeds, options=options)
        self._reset_seeds()
        self._reset_options()
        self._returns[:] = 0
        self._lengths[:] = 0
        masks = infos["action_mask"]
        self.reset_infos = [{"action_mask": masks[index]} for index in range(self.num_envs)]
        return observations

    def seed(self, seed: Optional[int] = None) -> Sequence[Optional[int]]:
        """SB3's `seed`: the next reset seeds board i with `seed + i` (a random `seed` when None). The seed is an
        integer exactly: a float, bool or text is a TypeError."""
        result: Sequence[Optional[int]] = super().seed(optional_integer(seed, "seed"))
        return result

    def __copy__(self) -> "Gym2048SB3VecEnv":
        """A real copy, as `copy.deepcopy` makes it: the boards are copied (a shallow copy would share the engine,
        and closing either would close both's)."""
        return copy.deepcopy(self)

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[npt.NDArray[Any], npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                 list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, infos = self.envs.step(np.asarray(actions).reshape(-1))
        dones = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_info"]
            elapsed = round(time.perf_counter() - self._started, 6)
            for index in np.flatnonzero(dones):
                out[index] = {
                    "terminal_observation": infos["final_obs"][index],
                    "TimeLimit.truncated": bool(truncated[index] and not terminated[index]),
                    "episode": {"r": float(self._returns[index]), "l": int(self._lengths[index]), "t": elapsed},
                    "score": int(final["score"][index]), "max_tile": int(final["max_tile"][index]),
                }
            self._returns[dones] = 0
            self._lengths[dones] = 0
        return observations, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        self.envs.close()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, 4) bool: the legal moves of each observation last returned (sb3-contrib's MaskablePPO)."""
        return self.envs.action_masks()

    def get_attr(self, attr_name: str, indices: Indices = None) -> list[Any]:
        """Each environment's attribute; for a method (`action_masks`, `afterstates`, `get_state`, `render`), a
        function that calls it on that environment (how sb3-contrib finds `action_masks`)."""
        if attr_name in _METHODS:
            return [functools.partial(self._method_of, attr_name, index) for index in self._get_indices(indices)]
        values = self.envs.get_attr(attr_name)
        return [values[index] for index in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Indices = None) -> None:
        chosen = list(self._get_indices(indices))
        if attr_name == "state" and len(chosen) != self.num_envs:
            states = self.envs.get_state()
            for index in chosen:
                states[index] = value
            value = states
        self.envs.set_attr(attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Indices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Each environment's `method_name()` (`action_masks`, `afterstates`, `get_state`, `render`), computed for
        the batch in one engine call."""
        results = self.envs.call(method_name, *method_args, **method_kwargs)
        return [results[index] for index in self._get_indices(indices)]

    def _method_of(self, name: str, index: int) -> Any:
        return self.env_method(name, indices=[index])[0]

    def env_is_wrapped(self, wrapper_class: type, indices: Indices = None) -> list[bool]:
        """No environment is wrapped (there is no Python environment per board); the `episode` statistics that
        SB3's Monitor would add are in the infos already."""
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[npt.NDArray[Any]]]:
        """One RGB image per board (`render_mode="rgb_array"`), for SB3's `render()`."""
        if self.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return list(self.envs.render())

    # -- beyond SB3 ------------------------------------------------------------------------------------
    def get_state(self) -> list[dict[str, Any]]:
        """Every board's state (see `Gym2048Env.get_state`)."""
        return self.envs.get_state()

    def set_state(self, states: Sequence[dict[str, Any]]) -> npt.NDArray[Any]:
        """Restore every board; returns the observations (episode statistics restart from the restored states)."""
        observations, _ = self.envs.set_state(states)
        self._returns[:] = 0
        self._lengths[:] = 0
        return observations

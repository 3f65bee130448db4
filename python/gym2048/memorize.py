"""`MemorizeEnv` and `MemorizeVectorEnv`: Memorize, the memory card game, as Gymnasium environments.

    import gymnasium, gym2048
    env = gymnasium.make("Memorize-v0", rows=4, cols=4)
    envs = gymnasium.make_vec("Memorize-v0", num_envs=8)

The engine plays it, in this process (`backend="inprocess"`, through the C ABI's buffers) or in a
`g2048 serve` child (`backend="server"`); both send the same JSON to the same engine code, so they accept and
refuse the same options with the same messages and play the same games for the same seeds and cards. The keyword
options are the engine's Memorize options (`rows`, `cols`, `reveal_seen`, `mismatch_penalty`, `max_steps`; and
`autoreset_mode` for the vector), checked there. docs/MEMORIZE.md has the rules and the codes of an observation.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .backend import BACKENDS
from .client import G2048
from .env import discrete_action, observation_space
from .handles import HandleOwner
from .integers import action_array, seed_value, vector_seeds

_AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                    "disabled": AutoresetMode.DISABLED}


class _Door(Protocol):
    def call(self, method: str, params: Optional[dict[str, Any]] = None) -> Any: ...
    def close(self) -> None: ...


def _door(backend: str, binary: Optional[str], options: dict[str, Any]) -> _Door:
    """A session of the engine serving Memorize with `options`, by the transport `backend` names."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    make = {"game": "memorize", **options}
    if backend == "server":
        return G2048(binary, **make)
    from .native import MemorizeBufferSession
    return MemorizeBufferSession(make)


def _spaces(spec: dict[str, Any]) -> tuple[spaces.Box, spaces.Discrete[np.int64]]:
    return observation_space(spec), spaces.Discrete(spec["actions"])


def _card(action: Any, cards: int) -> int:
    """A card as Python users pass it, checked against Discrete(cards) (see `discrete_action`)."""
    return discrete_action(action, cards, noun="card")


def _info(info: dict[str, Any]) -> dict[str, Any]:
    """The engine's info with its mask as a numpy int8 array (MaskablePPO's and Gymnasium's form)."""
    return {**info, "action_mask": np.asarray(info["action_mask"], dtype=np.int8)}


class _Uncopied(HandleOwner):
    """Memorize's environments own their session, and the engine cannot save a Memorize state (the deal is hidden):
    a copy or a pickle is refused, saying to make another."""

    def _copy_advice(self) -> str:
        return (f"make another {type(self).__name__} with the same options (the engine saves no Memorize state, "
                "whose deal is hidden)")


class MemorizeEnv(_Uncopied, gymnasium.Env[npt.NDArray[Any], np.int64]):
    """One game of Memorize: observation `(rows, cols)` uint8 codes (0 face down, 1 matched, 2 + c face up with
    content c, 2 + pairs + c seen with `reveal_seen`), action a card `Discrete(rows·cols)`, reward 1 for a pair
    and `-mismatch_penalty` for a mismatch, terminated when every pair is matched, truncated at `max_steps`.
    `info["action_mask"]` marks the face-down cards; a card that is not face down raises the engine's error."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, render_mode: Optional[str] = None, backend: str = "inprocess", binary: Optional[str] = None,
                 **options: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if "num_envs" in options or "game" in options:
            raise TypeError("MemorizeEnv is one game: num_envs belongs to gymnasium.make_vec, and game is fixed")
        self.render_mode, self.backend = render_mode, backend
        self._door: Optional[_Door] = _door(backend, binary, options)
        self.spec_info: dict[str, Any] = self._door.call("spec")
        self.observation_space, self.action_space = _spaces(self.spec_info)
        self._cards: int = self.spec_info["actions"]
        self._shape = self.observation_space.shape
        self._last_info: dict[str, Any] = {}

    def _live(self) -> _Door:
        if self._door is None:
            raise gymnasium.error.ClosedEnvironmentError("the environment is closed")
        return self._door

    def _observation(self, value: Any) -> npt.NDArray[Any]:
        return np.asarray(value, dtype=np.uint8).reshape(self._shape)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
              ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        seed = seed_value(seed)
        super().reset(seed=seed)
        if options:
            raise ValueError(f"Memorize's reset takes no options, got {sorted(options)}")
        result = self._live().call("reset", {"seed": seed} if seed is not None else {})
        self._last_info = _info(result["info"])
        return self._observation(result["observation"]), self._last_info

    def step(self, action: Any) -> tuple[npt.NDArray[Any], SupportsFloat, bool, bool, dict[str, Any]]:
        card = _card(action, self._cards)
        result = self._live().call("step", {"action": card})
        self._last_info = _info(result["info"])
        return (self._observation(result["observation"]), float(result["reward"]), bool(result["terminated"]),
                bool(result["truncated"]), self._last_info)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The face-down cards of the current state (sb3-contrib's MaskablePPO asks for this)."""
        return np.asarray(self._last_info.get("action_mask", np.ones(self._cards)), dtype=np.bool_)

    def render(self) -> Any:
        if self.render_mode != "ansi":
            return None
        return self._live().call("render", {})

    def close(self) -> None:
        if self._door is not None:
            self._door.close()
            self._door = None


class MemorizeVectorEnv(_Uncopied, VectorEnv[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]):
    """`num_envs` games of Memorize stepped together by the engine, with Gymnasium's autoreset modes
    (`autoreset_mode`: "next_step", "same_step" or "disabled"). Infos are Gymnasium's vector form: each key an
    array over the environments with its `_key` mask; `infos["action_mask"]` is (num_envs, cards) int8."""

    metadata = {"render_modes": ["ansi"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, render_mode: Optional[str] = None, backend: str = "inprocess",
                 binary: Optional[str] = None, **options: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if isinstance(options.get("autoreset_mode"), AutoresetMode):
            options["autoreset_mode"] = {mode: name for name, mode in _AUTORESET_MODES.items()}[options["autoreset_mode"]]
        self.render_mode, self.backend = render_mode, backend
        # The engine's vector shape is the same for one environment: a vector of one is a vector.
        self._door: Optional[_Door] = _door(backend, binary, {"num_envs": num_envs, **options})
        self.spec_info: dict[str, Any] = self._door.call("spec")
        # The engine answers one environment in its single form (no autoreset); the vector form is kept here.
        self._single = self.spec_info["num_envs"] == 1
        self.num_envs = int(self.spec_info["num_envs"])
        self.single_observation_space, self.single_action_space = _spaces(self.spec_info)
        self._cards: int = self.spec_info["actions"]
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.autoreset_mode = _AUTORESET_MODES[self.spec_info["config"]["autoreset_mode"]]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self._over = np.zeros(self.num_envs, dtype=bool)

    def _live(self) -> _Door:
        if self._door is None:
            raise gymnasium.error.ClosedEnvironmentError("the environment is closed")
        return self._door

    def _batch(self, result: dict[str, Any], key: str) -> list[Any]:
        value = result[key]
        return [value] if self._single else list(value)

    def _infos(self, infos: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        present = np.ones(self.num_envs, dtype=bool)
        for key in infos[0]:
            dtype = np.int8 if key == "action_mask" else None
            out[key] = np.asarray([info[key] for info in infos], dtype=dtype)
            out["_" + key] = present
        return out

    def reset(self, *, seed: Optional[int | list[Optional[int]]] = None, options: Optional[dict[str, Any]] = None
              ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Reset every game. `seed`, as 2048's vector takes it: an int (game i gets the i+1-th SplitMix64 output of
        it), a sequence of `num_envs` ints or None (None keeps that game's stream) or None."""
        if options:
            raise ValueError(f"Memorize's reset takes no options, got {sorted(options)}")
        base, seeds = vector_seeds(seed, self.num_envs)
        params: dict[str, Any] = {}
        if seeds is not None:
            params["seeds"] = seeds
        elif base is not None:
            params["seed"] = base
        result = self._live().call("reset", params)
        self._over[:] = False
        observations = np.asarray(self._batch(result, "observation"), dtype=np.uint8)
        return observations, self._infos(self._batch(result, "info"))

    def step(self, actions: Any) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any],
                                          dict[str, Any]]:
        cards_list = action_array(actions, self.num_envs, self._cards - 1).tolist()
        door = self._live()
        if self._single:
            # One environment: the engine's single form, with next_step's autoreset done here as the vector does.
            if self._over[0] and self.autoreset_mode == AutoresetMode.NEXT_STEP:
                result = door.call("reset", {})
                self._over[0] = False
                return (np.asarray([result["observation"]], dtype=np.uint8), np.zeros(1), np.zeros(1, dtype=bool),
                        np.zeros(1, dtype=bool), self._infos([result["info"]]))
            result = door.call("step", {"action": cards_list[0]})
            self._over[0] = bool(result["terminated"] or result["truncated"])
            infos = self._infos([result["info"]])
            observation = np.asarray([result["observation"]], dtype=np.uint8)
            if self._over[0] and self.autoreset_mode == AutoresetMode.SAME_STEP:
                final = np.full(1, None, dtype=object)
                final[0] = observation[0]
                reset = door.call("reset", {})
                self._over[0] = False
                infos = self._infos([reset["info"]])
                infos["final_obs"], infos["_final_obs"] = final, np.ones(1, dtype=bool)
                observation = np.asarray([reset["observation"]], dtype=np.uint8)
            return (observation, np.asarray([float(result["reward"])]), np.asarray([bool(result["terminated"])]),
                    np.asarray([bool(result["truncated"])]), infos)
        result = door.call("step", {"actions": cards_list})
        infos = self._infos(result["info"])
        if "final_observation" in result:
            finals = result["final_observation"]
            final = np.full(self.num_envs, None, dtype=object)
            for index, value in enumerate(finals):
                if value is not None:
                    final[index] = np.asarray(value, dtype=np.uint8)
            infos["final_obs"], infos["_final_obs"] = final, np.asarray([value is not None for value in finals])
        return (np.asarray(result["observation"], dtype=np.uint8), np.asarray(result["reward"], dtype=np.float64),
                np.asarray(result["terminated"], dtype=bool), np.asarray(result["truncated"], dtype=bool), infos)

    def render(self) -> Any:
        if self.render_mode != "ansi":
            return None
        text: str = self._live().call("render", {})
        return tuple(text.split("\n\n"))

    def close_extras(self, **kwargs: Any) -> None:
        if self._door is not None:
            self._door.close()
            self._door = None

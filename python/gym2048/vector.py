"""`Gym2048VectorEnv`: `num_envs` boards as one `gymnasium.vector.VectorEnv`, served by ONE `g2048 serve` process."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .backend import Backend, make_backend, reset_params
from .client import ACTION_NAMES, splitmix64
from .env import BackendOwner, observation_space
from .integers import action_array, vector_seeds
from .render import parse_text, render_board

# What a vector step reports by default: the masks an agent needs, and the scores a logger wants. Every
# other info field (max_tile, steps, invalid, won, afterstate, spawn, moves) costs wire bytes for each
# environment on every step, so it is there when asked for: `info=["action_mask", "score", "max_tile"]`.
VECTOR_DEFAULT_INFO = ("action_mask", "score")

_AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                    "disabled": AutoresetMode.DISABLED}

Seed = Union[int, Sequence[Optional[int]], None]


class Gym2048VectorEnv(BackendOwner, VectorEnv[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]):
    """`num_envs` boards stepped by one engine call (in-process) or one request (`backend="server"`), with
    Gymnasium 1.x autoreset.

    Every keyword but `num_envs`, `render_mode`, `backend`, `binary` and `max_episode_steps` (Gymnasium's name for
    the engine's step limit) is an option of the engine, checked by it (`gym2048.options()` lists them; unknown
    name: TypeError, bad value: ValueError, with its message). The defaults differ from a single environment's for
    speed:
    `observation="base64_batch"` (the whole batch in one string; decodes to uint8 exponents),
    `info_layout="columns"`, and `info=["action_mask", "score"]` (ask for more, e.g. `info=["action_mask",
    "score", "max_tile", "steps"]`).

    Observations: (num_envs, *single shape). Infos: Gymnasium's vector form, one array per key (first axis =
    environment) and a boolean `_key` array; `infos["action_mask"]` is (num_envs, 4) int8.

    Autoreset (`autoreset_mode`): "next_step" (default): the step that ends an episode returns its last
    observation with terminated/truncated set; the NEXT step ignores that environment's action, resets it and
    returns its first observation with reward 0. The mask is always the legal moves of the observation returned:
    all zeros for a board with no move left, the board's moves for one that ended at the win tile or at
    the step limit. Any action is fine for an environment awaiting its reset; to sample from masks, give an all-zero
    row every action::

        mask = np.where(infos["action_mask"].any(1, keepdims=True), infos["action_mask"], 1)

    "same_step": a finished environment is reset at once; its last observation is in `infos["final_obs"]`
    (object array, None elsewhere; `infos["_final_obs"]` marks them) and `infos["final_info"]`.
    "disabled": call reset() yourself; stepping a finished environment raises the engine's error.

    Seeding: `reset(seed=s)` seeds environment i with the i+1-th output of SplitMix64 seeded with s;
    `reset(seed=[s0, s1, ...])` (one entry per environment, None = keep its stream) seeds environment i exactly
    as `Gym2048Env.reset(seed=si)` would.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, render_mode: Optional[str] = None, *, binary: Optional[str] = None,
                 backend: str = "inprocess", max_episode_steps: Optional[int] = None, **options: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if max_episode_steps is not None:
            # Gymnasium's keyword for the engine's step limit: the one place this package names that option.
            limit = "max_steps"
            if options.get(limit, max_episode_steps) != max_episode_steps:
                raise ValueError(f"max_episode_steps={max_episode_steps} and {limit}={options[limit]} disagree: "
                                 "give one of them")
            options[limit] = max_episode_steps
        self.render_mode = render_mode
        self._backend: Optional[Backend] = None
        self.backend = backend
        self._binary = binary
        if isinstance(options.get("autoreset_mode"), AutoresetMode):
            options["autoreset_mode"] = {mode: name for name, mode in _AUTORESET_MODES.items()}[options["autoreset_mode"]]
        settings = {"observation": "base64_batch", "info_layout": "columns", "info": list(VECTOR_DEFAULT_INFO), **options}
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool):
            raise TypeError(f"num_envs must be an integer, got {type(num_envs).__name__}")
        self._backend = make_backend(backend, {"num_envs": num_envs, **settings}, binary)
        self.spec_info: dict[str, Any] = self._backend.spec_info
        self.num_envs = num_envs
        self.single_observation_space = observation_space(self.spec_info)
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.autoreset_mode = _AUTORESET_MODES[self.spec_info["config"]["autoreset_mode"]]
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        # With one environment the engine runs in single mode (no autoreset): the env does what vector mode does.
        self._single = num_envs == 1
        self._finished = False
        self._reset_once = False
        self._masks: Optional[npt.NDArray[np.int8]] = None

    # -- reset --------------------------------------------------------------------------------------------
    def reset(self, *, seed: Seed = None,
              options: Optional[dict[str, Any]] = None) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Reset every environment. `seed`: an int (environment i gets the i+1-th SplitMix64 output of it), a
        list of `num_envs` ints or None (environment i starts as `Gym2048Env.reset(seed=seed[i])`; None keeps
        its stream) or None. `options={"board": rows×cols tile values}` starts every environment there."""
        base, seeds = vector_seeds(seed, self.num_envs)
        if base is not None:
            super().reset(seed=base)
        elif seeds is not None:
            super().reset(seed=None)
        elif not self._reset_once:
            # Gymnasium's convention: an unseeded first reset draws its seed from np_random.
            base = int(self.np_random.integers(0, 2**63))
        backend = self._live()
        if self._single:
            if seeds is not None:
                single_seed = seeds[0]
            else:
                single_seed = None if base is None else splitmix64(base, 1)[0]
            observation, over, info = backend.reset_one(reset_params(single_seed, None, options))
            self._finished = over
            self._reset_once = True
            return self._remember(self._one(observation, info))
        result = backend.reset_batch(reset_params(base, seeds, options))
        self._reset_once = True
        return self._remember(result)

    # -- step ---------------------------------------------------------------------------------------------
    def step(self, actions: Any) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64], npt.NDArray[np.bool_],
                                          npt.NDArray[np.bool_], dict[str, Any]]:
        """Step every environment with `actions` (num_envs integers 0..3). Anything else raises TypeError or
        ValueError naming what it got and the action space, before either backend sees it."""
        array = self._checked(actions)
        result = self._step_single(array) if self._single else self._live().step_batch(array)
        self._masks = result[4].get("action_mask")
        return result

    def _remember(self, result: tuple[npt.NDArray[Any], dict[str, Any]]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Keeps the masks of what the environments now show, for `action_masks()`."""
        self._masks = result[1].get("action_mask")
        return result

    def _checked(self, actions: Any) -> npt.NDArray[Any]:
        """`actions` as an integer array of num_envs entries 0..3 (any integer dtype, or a list of ints); anything
        else is a TypeError or ValueError naming what it got and the action space (the number rule's)."""
        return action_array(actions, self.num_envs, 3, ACTION_NAMES)

    def _step_single(self, array: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64],
                                                             npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                                                             dict[str, Any]]:
        backend = self._live()
        if self._finished and self.autoreset_mode == AutoresetMode.NEXT_STEP:
            observation, over, info = backend.reset_one({})  # no seed: the stream goes on, as in vector mode
            self._finished = over
            obs, infos = self._one(observation, info)
            return obs, np.zeros(1), np.zeros(1, dtype=bool), np.zeros(1, dtype=bool), infos
        observation, reward, terminated, truncated, info = backend.step_one(int(array[0]))
        obs, infos = self._one(observation, info)
        self._finished = terminated or truncated
        if self._finished and self.autoreset_mode == AutoresetMode.SAME_STEP:
            final_obs = np.full(1, None, dtype=object)
            final_obs[0] = obs[0]
            final_info = infos
            observation, over, info = backend.reset_one({})
            self._finished = over
            obs, infos = self._one(observation, info)
            infos["final_obs"], infos["_final_obs"] = final_obs, np.ones(1, dtype=bool)
            infos["final_info"], infos["_final_info"] = final_info, np.ones(1, dtype=bool)
        return (obs, np.array([reward]), np.array([terminated]), np.array([truncated]), infos)

    def _one(self, observation: npt.NDArray[Any], info: dict[str, Any]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """A single environment's result as a batch of one, in Gymnasium's vector info form."""
        infos: dict[str, Any] = {}
        for key, value in info.items():
            if key == "afterstate" and value is None:  # as a vector reports no afterstate: zeros, marked absent
                shape: tuple[int, ...] = tuple(self.spec_info["observation"]["shape"])
                infos[key] = np.zeros((1, *shape), dtype=np.dtype(self.spec_info["observation"]["dtype"]))
            elif isinstance(value, np.ndarray):
                infos[key] = value[None].copy()
            elif value is None or isinstance(value, dict):
                column = np.empty(1, dtype=object)
                column[0] = value
                infos[key] = column
            else:
                infos[key] = np.asarray([value])
            infos["_" + key] = np.array([value is not None])
        return observation[None].copy(), infos

    # -- masks, afterstates, state ------------------------------------------------------------------------
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, 4) bool: the legal moves of each observation last returned (all False for a board with no
        move left), for maskable-policy libraries."""
        if self._masks is not None:
            return self._masks.astype(bool)
        return self._afterstates()["legal"]

    def afterstates(self) -> dict[str, npt.NDArray[Any]]:
        """What each action would do in each environment, before the spawn, changing nothing: `legal`
        (num_envs, 4) bool, `reward` (num_envs, 4) float64, `observation` (num_envs, 4, *single observation
        shape) in the observation's encoding (the current board for an illegal move)."""
        return self._afterstates()

    def get_state(self) -> list[dict[str, Any]]:
        """Each environment's state, as `Gym2048Env.get_state` gives one (board, score, steps, phase, generator)."""
        state = self._get_state()
        return [state] if self._single else list(state)

    def set_state(self, states: Sequence[Mapping[str, Any]]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Restore every environment to its state (a list of `num_envs`, as `get_state` gives them); returns the
        observations and infos, as `reset` does. An environment restored "over" is reset by the next step
        (under "next_step" and "same_step" autoreset). A state the engine refuses raises G2048ParamsError
        naming its index; nothing changes then."""
        if not isinstance(states, (list, tuple)) or len(states) != self.num_envs:
            raise ValueError(f"states must be a list of {self.num_envs} states (one per environment, as get_state "
                             f"gives them), got {type(states).__name__}"
                             + (f" of {len(states)}" if isinstance(states, (list, tuple)) else ""))
        result = self._set_state(states[0] if self._single else list(states))
        decoder = self._live().decoder
        if self._single:
            self._finished = bool(result["terminated"])
            return self._remember(self._one(decoder.observation(result["observation"]), decoder.info(result["info"])))
        return self._remember((decoder.observations(result["observation"]), decoder.infos(result["info"])))

    def _reopen(self, options: dict[str, Any], *, render_mode: Optional[str], backend: str,
                binary: Optional[str]) -> None:
        num_envs = options.pop("num_envs")
        Gym2048VectorEnv.__init__(self, num_envs, render_mode, backend=backend, binary=binary, **options)

    # -- Gymnasium's per-environment access ---------------------------------------------------------------
    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Gymnasium's `get_attr`: `name` of each environment, a tuple of `num_envs`. The boards have no Python
        object each, so the attributes are what one environment of this vector has: `state`, `render_mode`,
        `spec_info`, `observation_space` and `action_space` (one environment's), `metadata`."""
        if name == "state":
            return tuple(self.get_state())
        shared = {"render_mode": self.render_mode, "spec_info": self.spec_info, "metadata": self.metadata,
                  "observation_space": self.single_observation_space, "action_space": self.single_action_space}
        if name not in shared:
            raise AttributeError(f"a {type(self).__name__} environment has no attribute {name!r}; attributes are "
                                 f"{', '.join(['state', *shared])}")
        return tuple(shared[name] for _ in range(self.num_envs))

    def set_attr(self, name: str, values: Any) -> None:
        """Gymnasium's `set_attr`: only `state` can be set (a list of `num_envs` states, or one state for every
        environment); the other attributes are the vector's configuration, fixed when it is made."""
        if name != "state":
            raise AttributeError(f"cannot set {name!r} on a {type(self).__name__}: only 'state' can be set (the "
                                 "other attributes are fixed when it is made)")
        self.set_state(values if isinstance(values, (list, tuple)) else [values] * self.num_envs)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Gymnasium's `call`: `name` called on each environment (or read, if it is not a method), a tuple of
        `num_envs` results: `action_masks`, `afterstates`, `get_state`, `render` (each environment's text or
        image), and `get_attr`'s attributes. One engine call serves the whole batch."""
        if args or kwargs:
            raise TypeError(f"{name}() of one environment takes no arguments; use set_attr('state', ...) to restore")
        if name == "action_masks":
            return tuple(self.action_masks())
        if name == "afterstates":
            batch = self.afterstates()
            return tuple({key: value[index] for key, value in batch.items()} for index in range(self.num_envs))
        if name == "get_state":
            return tuple(self.get_state())
        if name == "render":
            rendered = self.render()
            if rendered is None:
                return tuple(None for _ in range(self.num_envs))
            return tuple(rendered) if isinstance(rendered, tuple) else tuple(
                board + "\n" for board in rendered.rstrip("\n").split("\n\n"))
        return self.get_attr(name)

    # -- render, close ------------------------------------------------------------------------------------
    def render(self) -> Any:
        """"ansi": the boards as text, separated by blank lines; "rgb_array": a tuple of one RGB uint8 image per
        environment; None without a render mode."""
        if self.render_mode is None:
            return None
        text: str = self._live().call("render")["text"]
        if self.render_mode == "ansi":
            return text + "\n"
        return tuple(render_board(board) for board in parse_text(text))

    def close_extras(self, **kwargs: Any) -> None:
        """Release the engine (stop the server with backend="server"), once."""
        if self._backend is not None:
            self._backend.close()
            self._backend = None

"""`Gym2048VectorEnv`: `num_envs` boards as one `gymnasium.vector.VectorEnv`, served by ONE `g2048 serve` process."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .client import G2048, splitmix64
from .env import ServerOwner, check_backend, native_spec, observation_space
from .native import NativeBatch
from .render import parse_text, render_board
from .wire import Decoder

# What a vector step reports by default: the masks an agent needs, and the scores a logger wants. Every
# other info field (max_tile, steps, invalid, won, afterstate, spawn, moves) costs wire bytes for each
# environment on every step, so it is there when asked for: `info=["action_mask", "score", "max_tile"]`.
VECTOR_DEFAULT_INFO = ("action_mask", "score")

_AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                    "disabled": AutoresetMode.DISABLED}

Seed = Union[int, Sequence[Optional[int]], None]


class Gym2048VectorEnv(ServerOwner, VectorEnv[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]):
    """`num_envs` boards stepped in one request to one server process, with Gymnasium 1.x autoreset.

    Every keyword but `num_envs`, `render_mode`, `binary` and `max_episode_steps` (Gymnasium's name for the
    server's `max_steps`) is a server option, checked by the server (unknown name: TypeError, bad value:
    ValueError, with its message). The defaults differ from a single environment's for speed:
    `observation="base64_batch"` (the whole batch in one string; decodes to uint8 exponents),
    `info_layout="columns"`, and `info=["action_mask", "score"]` (ask for more, e.g. `info=["action_mask",
    "score", "max_tile", "steps"]`).

    Observations: (num_envs, *single shape). Infos: Gymnasium's vector form, one array per key (first axis =
    environment) and a boolean `_key` array; `infos["action_mask"]` is (num_envs, 4) int8.

    Autoreset (`autoreset_mode`): "next_step" (default): the step that ends an episode returns its last
    observation with terminated/truncated set; the NEXT step ignores that environment's action, resets it and
    returns its first observation with reward 0. The mask is always the legal moves of the observation returned:
    all zeros for a board with no move left, the board's moves for one that ended at the win tile or at
    max_steps. Any action is fine for an environment awaiting its reset; to sample from masks, give an all-zero
    row every action::

        mask = np.where(infos["action_mask"].any(1, keepdims=True), infos["action_mask"], 1)

    "same_step": a finished environment is reset at once; its last observation is in `infos["final_obs"]`
    (object array, None elsewhere; `infos["_final_obs"]` marks them) and `infos["final_info"]`.
    "disabled": call reset() yourself; stepping a finished environment raises the server's error.

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
            if options.get("max_steps", max_episode_steps) != max_episode_steps:
                raise ValueError(f"max_episode_steps={max_episode_steps} and max_steps={options['max_steps']} "
                                 "disagree: give one of them")
            options["max_steps"] = max_episode_steps
        self.render_mode = render_mode
        self._client: Optional[G2048] = None
        self._native: Optional[NativeBatch] = None
        self.backend = check_backend(backend)
        if isinstance(options.get("autoreset_mode"), AutoresetMode):
            options["autoreset_mode"] = {mode: name for name, mode in _AUTORESET_MODES.items()}[options["autoreset_mode"]]
        settings = {"observation": "base64_batch", "info_layout": "columns", "info": list(VECTOR_DEFAULT_INFO), **options}
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool):
            raise TypeError(f"num_envs must be an integer, got {type(num_envs).__name__}")
        if self.backend == "inprocess":
            self._native = NativeBatch(num_envs=int(num_envs), **settings)
            self.spec_info: dict[str, Any] = native_spec(self._native)
        else:
            self._client = G2048(binary=binary, num_envs=num_envs, **settings)
            self.spec_info = self._client.spec_info
        self.num_envs = num_envs
        self._decoder = Decoder(self.spec_info)
        self.single_observation_space = observation_space(self.spec_info)
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.autoreset_mode = _AUTORESET_MODES[self.spec_info["config"]["autoreset_mode"]]
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        # With one environment the server runs in single mode (no autoreset): the env does what vector mode does.
        self._single = num_envs == 1 and self._native is None
        self._finished = False
        self._reset_once = False

    # -- reset --------------------------------------------------------------------------------------------
    def reset(self, *, seed: Seed = None,
              options: Optional[dict[str, Any]] = None) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Reset every environment. `seed`: an int (environment i gets the i+1-th SplitMix64 output of it), a
        list of `num_envs` ints or None (environment i starts as `Gym2048Env.reset(seed=seed[i])`; None keeps
        its stream) or None. `options={"board": rows×cols tile values}` starts every environment there."""
        seeds: Optional[list[Optional[int]]] = None
        base: Optional[int] = None
        if isinstance(seed, (int, np.integer)):
            base = int(seed)
            super().reset(seed=base)
        elif isinstance(seed, (list, tuple, np.ndarray)):
            seeds = [None if s is None else int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed is a list of {len(seeds)} seeds, but there are {self.num_envs} environments")
            super().reset(seed=None)
        elif seed is not None:
            raise TypeError(f"seed must be an int, a list of {self.num_envs} ints or None, or None; "
                            f"got {type(seed).__name__}")
        elif not self._reset_once:
            # Gymnasium's convention: an unseeded first reset draws its seed from np_random.
            base = int(self.np_random.integers(0, 2**63))
        board = (options or {}).get("board")
        if self._native is not None:
            native = self._native
            native.reset(seed=base, seeds=seeds, board=board)
            self._reset_once = True
            return native.encode(native.observations), native.infos(native.columns)
        server = self._server()
        if self._single:
            if seeds is not None:
                single_seed = seeds[0]
            else:
                single_seed = None if base is None else splitmix64(base, 1)[0]
            result = server.reset(seed=single_seed, board=board)
            self._finished = bool(result.get("terminated"))
            self._reset_once = True
            return self._one(result)
        result = server.reset(seed=base, seeds=seeds, board=board)
        self._reset_once = True
        return self._decoder.observations(result["observation"]), self._decoder.infos(result["info"])

    # -- step ---------------------------------------------------------------------------------------------
    def step(self, actions: Any) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64], npt.NDArray[np.bool_],
                                          npt.NDArray[np.bool_], dict[str, Any]]:
        """Step every environment with `actions` (num_envs integers 0..3). Anything else raises TypeError or
        ValueError naming what it got and the action space, before either backend sees it."""
        array = self._checked(actions)
        if self._native is not None:
            return self._step_native(array)
        if self._single:
            return self._step_single(array)
        server = self._server()
        result = server.step_vector((array.astype(np.uint8) + 48).tobytes().decode("ascii"))
        decoder = self._decoder
        infos = decoder.infos(result["info"])
        if "final_observation" in result:
            final = decoder.final_observations(result["final_observation"])
            done = np.array([entry is not None for entry in final], dtype=bool)
            infos["final_obs"], infos["_final_obs"] = final, done
            raw_final_info = result.get("final_info")
            infos["final_info"] = decoder.infos(raw_final_info) if isinstance(raw_final_info, (dict, list)) else {}
            infos["_final_info"] = done.copy()
        return (decoder.observations(result["observation"]), decoder.rewards(result["reward"]),
                decoder.flags(result["terminated"]), decoder.flags(result["truncated"]), infos)

    def _checked(self, actions: Any) -> npt.NDArray[Any]:
        """`actions` as an integer array of num_envs entries 0..3 (any integer dtype, or a list of ints); anything
        else is a TypeError or ValueError naming what it got and the action space."""
        array = np.asarray(actions)
        space = f"the action space is MultiDiscrete([4] * {self.num_envs})"
        kind = array.dtype.kind
        if kind not in "iu":
            raise TypeError(f"actions must be integers 0..3 ({space}), got dtype {array.dtype}")
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) ({space}), got shape {array.shape}")
        # One pass over the batch: read as unsigned, a negative action is a huge one.
        unsigned = array.view(array.dtype.str.replace("i", "u")) if kind == "i" else array
        if unsigned.max() > 3:
            index = int(np.flatnonzero((array < 0) | (array > 3))[0])
            raise ValueError(f"actions[{index}] must be 0..3 (up, right, down, left; {space}), got {array[index]}")
        return array

    def _step_native(self, array: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64],
                                                              npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                                                              dict[str, Any]]:
        native = self._native
        assert native is not None
        np.copyto(native.actions, array, casting="unsafe")
        native.step()
        infos = native.infos(native.columns)
        if native.finals is not None:
            finals = native.finals.copy()
            final = np.full(self.num_envs, None, dtype=object)
            assert native.final_observations is not None
            for index in np.flatnonzero(finals):
                final[index] = native.encode(native.final_observations[index])
            infos["final_obs"], infos["_final_obs"] = final, finals
            # As the server backend decodes it: no keys at all when no episode ended.
            infos["final_info"] = native.infos(native.final_columns, present=finals) if finals.any() else {}
            infos["_final_info"] = finals.copy()
        return (native.encode(native.observations), native.rewards.astype(np.float64), native.terminations.copy(),
                native.truncations.copy(), infos)

    def _step_single(self, array: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64],
                                                             npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                                                             dict[str, Any]]:
        server = self._server()
        if self._finished and self.autoreset_mode == AutoresetMode.NEXT_STEP:
            result = server.reset()  # no seed: the environment's stream goes on, as in vector mode
            self._finished = bool(result.get("terminated"))
            obs, infos = self._one(result)
            return obs, np.zeros(1), np.zeros(1, dtype=bool), np.zeros(1, dtype=bool), infos
        result = server.step(int(array[0]))
        terminated, truncated = bool(result["terminated"]), bool(result["truncated"])
        obs, infos = self._one(result)
        self._finished = terminated or truncated
        if self._finished and self.autoreset_mode == AutoresetMode.SAME_STEP:
            final_obs = np.full(1, None, dtype=object)
            final_obs[0] = obs[0]
            final_info = infos
            restart = server.reset()
            self._finished = bool(restart.get("terminated"))
            obs, infos = self._one(restart)
            infos["final_obs"], infos["_final_obs"] = final_obs, np.ones(1, dtype=bool)
            infos["final_info"], infos["_final_info"] = final_info, np.ones(1, dtype=bool)
        return (obs, np.array([float(result["reward"])]), np.array([terminated]), np.array([truncated]), infos)

    def _one(self, result: dict[str, Any]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """A single-mode result as a batch of one."""
        return self._decoder.observations([result["observation"]]), self._decoder.infos([result["info"]])

    # -- render, close ------------------------------------------------------------------------------------
    def render(self) -> Any:
        """"ansi": the boards as text, separated by blank lines; "rgb_array": a tuple of one RGB uint8 image per
        environment; None without a render mode."""
        text = self._native.render() if self._native is not None else None
        if self.render_mode == "ansi":
            return (text if text is not None else self._server().render()) + "\n"
        if self.render_mode == "rgb_array":
            return tuple(render_board(board) for board in parse_text(text if text is not None else self._server().render()))
        return None

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the server, or release the in-process environments (once)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._native is not None:
            self._native.close()
            self._native = None

"""`Gym2048Env`: one 2048 board as a `gymnasium.Env`, served by a `g2048 serve` child process."""

from __future__ import annotations

from typing import Any, Mapping, Optional, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .backend import BACKENDS, Backend, make_backend, reset_params
from .client import ACTION_NAMES, G2048ParamsError
from .integers import seed_value
from .render import parse_text, render_board

#: The info keys the environments ask for unless `info=[...]` is given (the server also offers `afterstate`,
#: `spawn` and `moves`).
DEFAULT_INFO = ("action_mask", "score", "max_tile", "steps", "invalid", "won")


def discrete_action(action: Any, count: int, noun: str = "", names: str = "") -> int:
    """An action as Python users pass it (an int, a numpy integer, a 0-d or one-element integer array), checked
    against Discrete(count); anything else is a TypeError or ValueError naming what it got. `noun` says what an
    action is ("card"), `names` what each one does ("up, right, down, left"), for the messages."""
    top, space = count - 1, f"the action space is Discrete({count})"
    integer = f"a {noun}, an integer 0..{top}" if noun else f"an integer 0..{top}"
    if isinstance(action, np.ndarray):
        if action.size != 1:
            raise ValueError(f"action must be one {noun or 'integer'} 0..{top} ({space}), got an array of shape "
                             f"{action.shape}")
        if action.dtype.kind not in "iu":
            raise TypeError(f"action must be {integer} ({space}), got an array of dtype {action.dtype}")
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action must be {integer} ({space}), got {type(action).__name__} {action!r}")
    if not 0 <= int(action) <= top:
        what = f"a {noun} 0..{top}" if noun else f"0..{top}"
        raise ValueError(f"action must be {what} ({names + '; ' if names else ''}{space}), got {action}")
    return int(action)


def single_action(action: Any) -> int:
    """A 2048 action as Python users pass it, checked against Discrete(4) (see `discrete_action`)."""
    return discrete_action(action, 4, names=ACTION_NAMES)


def observation_space(spec: dict[str, Any]) -> spaces.Box:
    """The Box of one observation, from the server's spec (shape, dtype, low, high)."""
    observation = spec["observation"]
    shape = tuple(observation["shape"])
    return spaces.Box(observation["low"], observation["high"], shape=shape, dtype=np.dtype(observation["dtype"]))


class BackendOwner:
    """What both environments do with the backend they own (`self._backend`, None once closed): protocol requests,
    afterstates, saving and restoring state, pickling."""

    _backend: Optional[Backend]
    _binary: Optional[str]
    backend: str
    render_mode: Optional[str]
    spec_info: dict[str, Any]
    _reset_once: bool
    #: What a pickle keeps besides the engine's state: Gymnasium's generator and the episode bookkeeping.
    _PICKLED = ("_np_random", "_np_random_seed", "_reset_once", "_finished")

    @property
    def server_pid(self) -> Optional[int]:
        """The process id of the server (backend="server"), None in-process or once closed."""
        return None if self._backend is None else self._backend.server_pid

    def _live(self) -> Backend:
        if self._backend is None:
            raise gymnasium.error.Error(f"the {type(self).__name__} is closed")
        return self._backend

    def request(self, method: str, params: Optional[dict[str, Any]] = None) -> Any:
        """Any protocol method on this environment's engine session (`spec`, `afterstates`, `get_state`, ...), from
        either backend: its result as the protocol gives it (docs/PROTOCOL.md)."""
        return self._live().call(method, params)

    def _afterstates(self) -> dict[str, npt.NDArray[Any]]:
        """The engine's afterstates, stacked: `legal` (..., 4) bool, `reward` (..., 4) float64, `observation`
        (..., 4, *observation shape) in the observation's encoding (the board itself for an illegal move)."""
        backend = self._live()
        raw = backend.call("afterstates")["afterstates"]
        lists = raw if raw and isinstance(raw[0], list) else [raw]
        decoder = backend.decoder
        legal = np.array([[entry["legal"] for entry in entries] for entries in lists], dtype=bool)
        reward = np.array([[entry["reward"] for entry in entries] for entries in lists], dtype=np.float64)
        observation = np.stack([np.stack([decoder.board(entry["afterstate"]) for entry in entries])
                                for entries in lists])
        return {"legal": legal, "reward": reward, "observation": observation}

    def _get_state(self) -> Any:
        return self._live().call("get_state")["state"]

    def _set_state(self, state: Any) -> dict[str, Any]:
        result: dict[str, Any] = self._live().call("set_state", {"state": state})
        self._reset_once = True
        return result

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle or a deep copy keeps: the options, the transport, and the engine's state (none before
        the first reset); unpickling makes a new engine session in that state."""
        backend = self._live()
        saved = {name: self.__dict__[name] for name in self._PICKLED if name in self.__dict__}
        return {"options": dict(self.spec_info["config"]), "backend": self.backend, "binary": self._binary,
                "render_mode": self.render_mode, "state": self._get_state() if self._reset_once else None,
                "saved": saved, "pickled_by": "gym2048"}

    def __setstate__(self, pickled: dict[str, Any]) -> None:
        if not isinstance(pickled, dict) or pickled.get("pickled_by") != "gym2048":
            raise TypeError(f"not a pickled {type(self).__name__}")
        options = dict(pickled["options"])
        self._reopen(options, render_mode=pickled["render_mode"], backend=pickled["backend"], binary=pickled["binary"])
        if pickled["state"] is not None:
            self._set_state(pickled["state"])
        self.__dict__.update(pickled["saved"])

    def _reopen(self, options: dict[str, Any], *, render_mode: Optional[str], backend: str,
                binary: Optional[str]) -> None:
        raise NotImplementedError


class Gym2048Env(BackendOwner, gymnasium.Env[npt.NDArray[Any], np.int64]):
    """2048 on a rows×cols board: the Gym2048 engine in this process (`backend="inprocess"`, the default) or in a
    `g2048 serve` child (`backend="server"`), with the same options, checks, messages and episodes.

    ## Action space
    `Discrete(4)`: 0 up, 1 right, 2 down, 3 left. Anything else raises TypeError or ValueError, naming what it got.

    ## Observation space
    The engine's `spec` gives it (`spec_info["observation"]`): by default (`observation="base64"`, exponents in
    memory) `Box(0, high, (rows, cols), uint8)` of tile exponents (0 empty, k the tile 2^k; `high` the largest tile
    the board can make); `"values"` the tile values (int64), `"onehot"` `Box(0, 1, (channels, rows, cols), uint8)`,
    and for networks `"onehot_float32"` `Box(0, 1, (channels, rows, cols), float32)` and `"onehot_flat"` (one vector):
    every one-hot form has the same planes in the same order, channels first.

    ## Rewards
    The sum of the tiles merged by the move (the original game's score); an illegal move gives 0 under the default
    `invalid_action="noop"`.

    ## Episode end
    Terminated when no move is left (or at `win_tile`); truncated at the engine's step limit when one is set. The
    info holds `action_mask` (int8, 4: the legal moves of the returned observation), `score`, `max_tile`, `steps`,
    `invalid`, `won` by default (`info=[...]` picks them; `afterstate` and `spawn` too).

    ## Arguments
    Every keyword but `render_mode`, `backend` and `binary` (the server's path) is an option of the engine, checked
    by it: `gym2048.options()` lists them with their types, ranges, defaults and help. An unknown name raises
    G2048OptionError (a TypeError), a bad value G2048ParamsError (a ValueError), both with the engine's message.
    Render modes: "ansi" (text) and "rgb_array" (an RGB uint8 image).

    ## Version history
    v0: the original game's rules (Gabriele Cirulli's 2048); `spec_info["rules_version"]` counts changes to them.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, render_mode: Optional[str] = None, *, binary: Optional[str] = None, backend: str = "inprocess",
                 **options: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if options.get("num_envs", 1) != 1:
            raise ValueError("Gym2048Env is one environment: for num_envs use gymnasium.make_vec(\"Gym2048-v0\", "
                             "num_envs=N) or Gym2048VectorEnv")
        self.render_mode = render_mode
        self._backend: Optional[Backend] = None
        self.backend = backend
        self._binary = binary
        options = {"observation": "base64", "info": list(DEFAULT_INFO), **options}
        self._backend = make_backend(backend, options, binary)
        self.spec_info: dict[str, Any] = self._backend.spec_info
        self.observation_space = observation_space(self.spec_info)
        self.action_space = spaces.Discrete(4)
        self._mask: Optional[npt.NDArray[np.int8]] = None
        self._reset_once = False


    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Start an episode. `seed` makes it reproducible; `options={"board": rows×cols tile values}` starts from
        a custom board (one with a tile above the space's `high` is refused: ValueError with the server's
        message). `info["terminated"]` is true when that board is already over."""
        seed = seed_value(seed)
        super().reset(seed=seed)
        if seed is None and not self._reset_once:
            # Gymnasium's convention: an unseeded first reset draws its seed from np_random.
            seed = int(self.np_random.integers(0, 2**63))
        observation, over, info = self._live().reset_one(reset_params(seed, None, options))
        self._reset_once = True
        if over:
            info["terminated"] = True
        self._mask = info.get("action_mask")
        return observation, info

    def step(self, action: Any) -> tuple[npt.NDArray[Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Play `action` (0 up, 1 right, 2 down, 3 left). An action outside 0..3 raises G2048ParamsError (a
        ValueError) with the server's message."""
        step = self._live().step_one(action if type(action) is int and 0 <= action <= 3 else single_action(action))
        self._mask = step[4].get("action_mask")
        return step

    def render(self) -> Any:
        """"ansi": the board as text; "rgb_array": an RGB image (height, width, 3) uint8; None without a mode."""
        if self.render_mode == "ansi":
            return self._text() + "\n"
        if self.render_mode == "rgb_array":
            return render_board(parse_text(self._text())[0])
        return None

    def _text(self) -> str:
        text: str = self._live().call("render")["text"]
        return text

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal moves of the current state, as bool (for maskable-policy libraries such as sb3-contrib)."""
        if self._mask is not None:
            return self._mask.astype(bool)
        legal: npt.NDArray[np.bool_] = self._afterstates()["legal"][0]
        return legal

    def afterstates(self) -> dict[str, npt.NDArray[Any]]:
        """What each action (0 up, 1 right, 2 down, 3 left) would do from the current state, before the spawn, as
        the engine computes it, changing nothing: `legal` (4,) bool, `reward` (4,) float64 (the merged tiles),
        `observation` (4, *observation shape) in the observation's encoding (the current board for an illegal
        move). The one call an afterstate learner or a search agent needs per decision."""
        return {key: value[0] for key, value in self._afterstates().items()}

    def get_state(self) -> dict[str, Any]:
        """Everything that decides this environment's future, as the engine saves it (JSON-safe): `board` (tile
        values), `score`, `steps`, `phase` ("running" or "over"), `generator` (the spawn generator's four words).
        `set_state` on this or another environment with the same options restores it: the same actions then
        give the same observations, rewards and spawns."""
        state: dict[str, Any] = self._get_state()
        return state

    def set_state(self, state: Mapping[str, Any]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Restore a state `get_state` gave; returns its observation and info, as `reset` does. The engine checks
        every member against the rules and the others (a "running" state needs a legal move): G2048ParamsError (a
        ValueError) with its message, and nothing changes."""
        result = self._set_state(state)
        decoder = self._live().decoder
        info = decoder.info(result["info"])
        self._mask = info.get("action_mask")
        return decoder.observation(result["observation"]), info

    def _reopen(self, options: dict[str, Any], *, render_mode: Optional[str], backend: str,
                binary: Optional[str]) -> None:
        Gym2048Env.__init__(self, render_mode, backend=backend, binary=binary, **options)

    def close(self) -> None:
        """Release the engine (stop the server with backend="server"). Calling it again does nothing."""
        if self._backend is not None:
            self._backend.close()
            self._backend = None
        super().close()


__all__ = ["Gym2048Env", "BACKENDS", "DEFAULT_INFO", "observation_space", "single_action", "discrete_action", "G2048ParamsError"]

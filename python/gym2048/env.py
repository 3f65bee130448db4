"""`Gym2048Env`: one 2048 board as a `gymnasium.Env`, served by a `g2048 serve` child process."""

from __future__ import annotations

from typing import Any, Optional, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .client import G2048, G2048ParamsError
from .native import NativeBatch
from .render import parse_text, render_board
from .wire import Decoder

#: Where the environment runs: "inprocess" (the library, called directly) or "server" (a `g2048 serve` child).
BACKENDS = ("inprocess", "server")

#: The info keys the environments ask for unless `info=[...]` is given (the server also offers `afterstate`,
#: `spawn` and `moves`).
DEFAULT_INFO = ("action_mask", "score", "max_tile", "steps", "invalid", "won")


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    return backend


def native_spec(native: NativeBatch) -> dict[str, Any]:
    """The parts of a server `spec` the environments read, for the in-process backend."""
    shape = [native.rows, native.cols] if native.encoding != "onehot" else [native.channels, native.rows, native.cols]
    dtype = "int64" if native.encoding == "values" else "uint8"
    return {"rows": native.rows, "cols": native.cols, "num_envs": native.num_envs,
            "observation": {"encoding": native.encoding, "shape": shape, "dtype": dtype, "low": 0, "high": native.high},
            "config": {"autoreset_mode": native.autoreset_mode, "info": list(native.info_fields)}}


def single_action(action: Any) -> int:
    """An action as Python users pass it (an int, a numpy integer, a 0-d or one-element integer array), checked
    against Discrete(4); anything else is a TypeError or ValueError naming what it got."""
    if isinstance(action, np.ndarray):
        if action.size != 1:
            raise ValueError(f"action must be one integer 0..3 (the action space is Discrete(4)), got an array of "
                             f"shape {action.shape}")
        if action.dtype.kind not in "iu":
            raise TypeError(f"action must be an integer 0..3 (the action space is Discrete(4)), got an array of "
                            f"dtype {action.dtype}")
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action must be an integer 0..3 (the action space is Discrete(4)), got "
                        f"{type(action).__name__} {action!r}")
    if not 0 <= int(action) <= 3:
        raise ValueError(f"action must be 0..3 (up, right, down, left; the action space is Discrete(4)), got {action}")
    return int(action)


def observation_space(spec: dict[str, Any]) -> spaces.Box:
    """The Box of one observation, from the server's spec (shape, dtype, low, high)."""
    observation = spec["observation"]
    shape = tuple(observation["shape"])
    return spaces.Box(observation["low"], observation["high"], shape=shape, dtype=np.dtype(observation["dtype"]))


class ServerOwner:
    """What both environments do with the server process they own (`self._client`, None once closed)."""

    _client: Optional[G2048]

    @property
    def server_pid(self) -> Optional[int]:
        """The process id of the server, None once closed."""
        return None if self._client is None or self._client.closed else self._client.pid

    def _server(self) -> G2048:
        if self._client is None:
            raise gymnasium.error.Error(f"the {type(self).__name__} is closed")
        return self._client


class Gym2048Env(ServerOwner, gymnasium.Env[npt.NDArray[Any], np.int64]):
    """2048 on a rows×cols board, served by a `g2048 serve` child process.

    Every keyword but `render_mode` and `binary` is a server option (`rows`, `cols`, `observation`, `info`,
    `max_steps`, `win_tile`, `invalid_action`, ...: the names in the server's `spec()["config"]`); the server
    checks them, and an unknown name raises TypeError, a bad value ValueError, both with the server's message.

    Observation: by default `observation="base64"`, a Box(0, high, (rows, cols), uint8) of tile exponents
    (0 = empty, k = tile 2^k); `"exponents"` gives the same, `"values"` the tile values (int64),
    `"onehot"` a Box(0, 1, (channels, rows, cols), uint8). The space comes from the server's spec.
    Action: Discrete(4), 0 = up, 1 = right, 2 = down, 3 = left; anything else raises the server's error.
    Reward: the value of the tiles merged by the move. `info["action_mask"]` (int8, 4) marks the legal moves of
    the returned observation. Render modes: "ansi" (text) and "rgb_array" (an RGB uint8 image).
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
        self._client: Optional[G2048] = None
        self._native: Optional[NativeBatch] = None
        self.backend = check_backend(backend)
        options = {"observation": "base64", "info": list(DEFAULT_INFO), **options}
        if self.backend == "inprocess":
            # A batch of one whose autoreset is off: stepping a finished episode is an error, as with the server.
            self._native = NativeBatch(autoreset_mode="disabled", **options)
            self.spec_info: dict[str, Any] = native_spec(self._native)
        else:
            self._client = G2048(binary=binary, **options)
            self.spec_info = self._client.spec_info
        self._decoder = Decoder(self.spec_info)
        self.observation_space = observation_space(self.spec_info)
        self.action_space = spaces.Discrete(4)
        self._mask: Optional[npt.NDArray[np.int8]] = None
        self._reset_once = False


    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Start an episode. `seed` makes it reproducible; `options={"board": rows×cols tile values}` starts from
        a custom board (one with a tile above the space's `high` is refused: ValueError with the server's
        message). `info["terminated"]` is true when that board is already over."""
        super().reset(seed=seed)
        if seed is None and not self._reset_once:
            # Gymnasium's convention: an unseeded first reset draws its seed from np_random.
            seed = int(self.np_random.integers(0, 2**63))
        board = (options or {}).get("board")
        if self._native is not None:
            native = self._native
            native.reset(seeds=[seed], board=board)
            self._reset_once = True
            info = native.info(0)
            if native.terminations[0]:
                info["terminated"] = True
            self._mask = info.get("action_mask")
            return native.encode(native.observations[0]), info
        result = self._server().reset(seed=seed, board=board)
        self._reset_once = True
        info = self._decoder.info(result["info"])
        if result.get("terminated"):
            info["terminated"] = True
        self._mask = info.get("action_mask")
        return self._decoder.observation(result["observation"]), info

    def step(self, action: Any) -> tuple[npt.NDArray[Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Play `action` (0 up, 1 right, 2 down, 3 left). An action outside 0..3 raises G2048ParamsError (a
        ValueError) with the server's message."""
        if self._native is not None:
            native = self._native
            native.actions[0] = action if type(action) is int and 0 <= action <= 3 else single_action(action)
            native.step()
            info = native.info(0)
            self._mask = info.get("action_mask")
            return (native.encode(native.observations[0]), float(native.rewards.item(0)),
                    bool(native.terminations.item(0)), bool(native.truncations.item(0)), info)
        result = self._server().step(single_action(action))
        info = self._decoder.info(result["info"])
        self._mask = info.get("action_mask")
        return (self._decoder.observation(result["observation"]), float(result["reward"]),
                bool(result["terminated"]), bool(result["truncated"]), info)

    def render(self) -> Any:
        """"ansi": the board as text; "rgb_array": an RGB image (height, width, 3) uint8; None without a mode."""
        if self.render_mode == "ansi":
            return self._text() + "\n"
        if self.render_mode == "rgb_array":
            return render_board(parse_text(self._text())[0])
        return None

    def _text(self) -> str:
        if self._native is not None:
            return self._native.render()
        return self._server().render()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal moves of the current state, as bool (for maskable-policy libraries such as sb3-contrib)."""
        if self._mask is not None:
            return self._mask.astype(bool)
        if self._native is not None:
            legal: npt.NDArray[np.bool_] = self._native.afterstates()[0][0]
            return legal
        return np.array([a["legal"] for a in self._server().afterstates()], dtype=bool)

    def close(self) -> None:
        """Stop the server. Calling it again does nothing."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._native is not None:
            self._native.close()
            self._native = None
        super().close()


__all__ = ["Gym2048Env", "BACKENDS", "DEFAULT_INFO", "observation_space", "single_action", "G2048ParamsError"]

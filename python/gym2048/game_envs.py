"""`GameEnv` and `GameVectorEnv`: every game the engine serves as Gymnasium environments, from its declaration.

    import gymnasium, gym2048
    env = gymnasium.make("Memorize-v0", rows=4, cols=4)          # GameEnv(game="memorize", rows=4, cols=4)
    envs = gymnasium.make_vec("Memorize-v0", num_envs=1024)      # GameVectorEnv(game="memorize", num_envs=1024)
    gym2048.games()                                              # the games, with their options

Nothing here names a game. The spaces come from the engine's `spec` (the observation's shape, dtype and range,
the number of actions), the infos from the game's result columns (`g2048_columns`; `spec["info"]` through the
server): each column a numpy array allocated once, which the engine writes in one call per reset or step
(`backend="inprocess"`, through the C ABI), or which the JSON results of a `g2048 serve` child are copied into
(`backend="server"`). Both read the same arrays the same way, so they give the same values, and the engine checks
the options and refuses what it refuses with its own messages. A bool info column as wide as the actions, named
`action_mask`, is given as int8 (MaskablePPO's form; `action_masks()` gives it as bools).
"""

from __future__ import annotations

import re
from typing import Any, Optional, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .backend import BACKENDS
from .client import G2048, splitmix64
from .env import discrete_action, observation_space
from .handles import HandleOwner
from .integers import action_array, seed_value, vector_seeds
from .native import column_arrays
from .text_image import text_image

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                   "disabled": AutoresetMode.DISABLED}
#: The mask of the legal actions, when a game declares one.
MASK = "action_mask"
#: The render modes of both environments: the engine's text ("ansi"), printed ("human", at every reset and step,
#: as Gymnasium specifies), or drawn ("rgb_array": what Stable-Baselines3's `make_vec_env` asks for by default).
RENDER_MODES = ["ansi", "human", "rgb_array"]
#: The columns every game has before its info columns.
_FIXED = ("observation", "reward", "terminated", "truncated")


def env_id(game: str) -> str:
    """The Gymnasium id of the engine's game `game`: its name in CamelCase with `-v0` ("memorize" → "Memorize-v0")."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", game) if part) + "-v0"


def spec_layout(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The result columns a session with this `spec` writes, as `g2048_columns` lists them (the reward as float64,
    a JSON number): what the server backend fills from the JSON results."""
    observation = spec["observation"]
    width = int(np.prod(observation["shape"]))
    first = [{"name": "observation", "dtype": observation["dtype"], "width": width},
             {"name": "reward", "dtype": "float64", "width": 1}, {"name": "terminated", "dtype": "bool", "width": 1},
             {"name": "truncated", "dtype": "bool", "width": 1}]
    info = [dict(column) for column in spec["info"]]
    layout = first + info
    if spec["num_envs"] > 1 and spec["config"]["autoreset_mode"] == "same_step":
        layout.append({"name": "final", "dtype": "bool", "width": 1})
        layout += [{**column, "name": "final_" + column["name"]} for column in [first[0], *info]]
    return layout


def fill_columns(columns: dict[str, npt.NDArray[Any]], info: list[str], result: dict[str, Any]) -> None:
    """A protocol `reset` or `step` result copied into the `columns` the C ABI would have written for it (the
    reward and flags zero after a reset, each final column zero where no episode ended); `info` names the info
    columns."""
    count = len(columns["observation"])
    single = count == 1

    def each(value: Any) -> list[Any]:
        return [value] if single else list(value)

    columns["observation"][:] = each(result["observation"])
    columns["reward"][:] = each(result["reward"]) if "reward" in result else 0
    columns["terminated"][:] = each(result["terminated"])
    columns["truncated"][:] = each(result["truncated"]) if "truncated" in result else False
    infos = each(result["info"])
    for name in info:
        columns[name][:] = [entry[name] for entry in infos]
    if "final" in columns:
        finals = each(result.get("final_observation", [None] * count))
        final_infos = each(result.get("final_info", [None] * count))
        columns["final"][:] = [value is not None for value in finals]
        for name in ("observation", *info):
            target = columns["final_" + name]
            target[:] = 0
            for index, (observation, entry) in enumerate(zip(finals, final_infos)):
                if observation is not None:
                    target[index] = observation if name == "observation" else entry[name]


class _Served:
    """A `g2048 serve` child as the columns: each JSON result of `reset` and `step` copied into the same arrays
    `ColumnSession` has the engine write, so both backends are read alike."""

    def __init__(self, binary: Optional[str], options: dict[str, Any]) -> None:
        self.client = G2048(binary, **options)
        self.spec: dict[str, Any] = self.client.call("spec")
        if "info" not in self.spec:
            raise ValueError(f"the server's {self.spec.get('game', '2048')} session declares no info columns: "
                             "2048 is Gym2048Env's and Gym2048VectorEnv's (gymnasium.make(\"Gym2048-v0\"))")
        self.num_envs: int = self.spec["num_envs"]
        self.layout = spec_layout(self.spec)
        self.columns = column_arrays(self.layout, self.num_envs, tuple(self.spec["observation"]["shape"]))
        self.actions = np.zeros(self.num_envs, np.int64)
        self._info = [column["name"] for column in self.spec["info"]]

    @property
    def server_pid(self) -> Optional[int]:
        return self.client.pid

    def call(self, method: str, params: Optional[dict[str, Any]] = None) -> Any:
        return self.client.call(method, params)

    def reset(self, params: dict[str, Any]) -> None:
        fill_columns(self.columns, self._info, self.client.call("reset", dict(params)))

    def step(self) -> None:
        actions = self.actions.tolist()
        fill_columns(self.columns, self._info,
                     self.client.call("step", {"action": actions[0]} if self.num_envs == 1 else {"actions": actions}))

    def close(self) -> None:
        self.client.close()


def _open(backend: str, binary: Optional[str], options: dict[str, Any]) -> Any:
    """A session of the engine with `options`, by the transport `backend` names: `ColumnSession` or `_Served`."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "server":
        return _Served(binary, options)
    from .native import ColumnSession
    return ColumnSession(options)


def _action_count(spec: dict[str, Any]) -> int:
    """The number of actions `spec` gives: a count, or the list of their names."""
    actions = spec["actions"]
    return len(actions) if isinstance(actions, list) else int(actions)


def _is_mask(column: dict[str, Any], actions: int) -> bool:
    return bool(column["name"] == MASK and column["dtype"] == "bool" and column["width"] == actions)


def _check_render_mode(owner: Any, render_mode: Optional[str]) -> None:
    if render_mode is not None and render_mode not in owner.metadata["render_modes"]:
        raise ValueError(f"render_mode must be one of {owner.metadata['render_modes']} or None, got {render_mode!r}")


def _rendered(render_mode: Optional[str], texts: list[str]) -> Any:
    """What `render()` gives for the engine's text of each environment: the texts ("ansi"), their images
    ("rgb_array"), or None after printing them ("human") or without a mode."""
    if render_mode == "ansi":
        return texts
    if render_mode == "rgb_array":
        return [text_image(text) for text in texts]
    if render_mode == "human":
        print("\n\n".join(texts) + "\n", flush=True)
    return None


class _Uncopied(HandleOwner):
    """The environments own their session, and the engine saves no state of a declared game (a deal may be hidden):
    a copy or a pickle is refused, saying to make another."""

    game: str

    def _copy_advice(self) -> str:
        return (f"make another {type(self).__name__} with the same options (the engine saves no {self.game} state, "
                "which may be hidden)")


class _Session:
    """What both environments read of their session: the spec, the spaces' sizes, the columns."""

    _session: Any
    game: str
    render_mode: Optional[str]

    def _open(self, game: str, backend: str, binary: Optional[str], options: dict[str, Any]) -> None:
        self.game, self.backend = game, backend
        self._session = _open(backend, binary, {"game": game, **options})
        self.spec_info: dict[str, Any] = self._session.spec
        self._actions: int = _action_count(self.spec_info)
        columns = self._session.columns
        self._columns: dict[str, npt.NDArray[Any]] = columns
        self._observations = columns["observation"]
        self._rewards, self._terminated, self._truncated = columns["reward"], columns["terminated"], columns["truncated"]
        fixed = len(_FIXED)
        infos = self._session.layout[fixed:]
        if "final" in columns:
            infos = infos[:infos.index(next(c for c in infos if c["name"] == "final"))]
        # (name, array, as int8): every info column in the engine's order.
        self._info_columns: list[tuple[str, npt.NDArray[Any]]] = [
            (c["name"], columns[c["name"]].view(np.int8) if _is_mask(c, self._actions) else columns[c["name"]])
            for c in infos]
        self._mask: Optional[npt.NDArray[Any]] = next((a for n, a in self._info_columns if n == MASK), None)

    @property
    def server_pid(self) -> Optional[int]:
        """The process id of the server (backend="server"), None in-process or once closed."""
        session = self._session
        return getattr(session, "server_pid", None) if session is not None else None

    def _live(self) -> Any:
        if self._session is None:
            raise gymnasium.error.ClosedEnvironmentError("the environment is closed")
        return self._session

    def _reset_options(self, options: Optional[dict[str, Any]]) -> None:
        if options:
            raise ValueError(f"{self.game}'s reset takes no options, got {sorted(options)}")

    def _render_text(self) -> str:
        text: str = self._live().call("render", {})["text"]
        return text

    def _show(self) -> None:
        """Gymnasium's "human" mode: the state printed at every reset and step."""
        if self.render_mode == "human":
            _rendered("human", self._render_text().split("\n\n"))

    def _close_session(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


class GameEnv(_Session, _Uncopied, gymnasium.Env[npt.NDArray[Any], np.int64]):
    """One environment of the engine's game `game`, with its options as keywords (checked by the engine): the
    observation space from its spec, action `Discrete(actions)`, an info dict of its info columns (one value each,
    an array for a column wider than one). A step after the episode's end, and an action the game refuses, raise
    the engine's error."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, game: str, render_mode: Optional[str] = None, backend: str = "inprocess",
                 binary: Optional[str] = None, **options: Any) -> None:
        _check_render_mode(self, render_mode)
        if "num_envs" in options or "autoreset_mode" in options:
            raise TypeError(f"{type(self).__name__} is one environment: num_envs and autoreset_mode belong to "
                            "gymnasium.make_vec")
        self.render_mode = render_mode
        self._session = None
        self._open(game, backend, binary, options)
        self.observation_space = observation_space(self.spec_info)
        self.action_space = spaces.Discrete(self._actions)
        self._action = self._session.actions

    def _info(self) -> dict[str, Any]:
        return {name: array[0].copy() if array.ndim > 1 else array[0].item() for name, array in self._info_columns}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
              ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        seed = seed_value(seed)
        super().reset(seed=seed)
        self._reset_options(options)
        self._live().reset({"seed": seed} if seed is not None else {})
        self._show()
        return self._observations[0].copy(), self._info()

    def step(self, action: Any) -> tuple[npt.NDArray[Any], SupportsFloat, bool, bool, dict[str, Any]]:
        self._action[0] = discrete_action(action, self._actions)
        self._live().step()
        self._show()
        return (self._observations[0].copy(), float(self._rewards[0]), bool(self._terminated[0]),
                bool(self._truncated[0]), self._info())

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the current state (sb3-contrib's MaskablePPO asks for this): the game's
        `action_mask` column, or every action when it declares none."""
        if self._mask is None:
            return np.ones(self._actions, dtype=np.bool_)
        mask: npt.NDArray[np.bool_] = self._mask[0].astype(np.bool_)
        return mask

    def render(self) -> Any:
        """"ansi": the engine's text; "rgb_array": that text drawn, (height, width, 3) uint8; "human": prints the
        text (reset and step do it too) and returns None; None without a mode."""
        rendered = _rendered(self.render_mode, [self._render_text()] if self.render_mode else [])
        return rendered[0] if rendered is not None else None

    def close(self) -> None:
        self._close_session()


class GameVectorEnv(_Session, _Uncopied, VectorEnv[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]):
    """`num_envs` environments of the engine's game `game` stepped together by the engine, in one call per step,
    with Gymnasium's autoreset modes (`autoreset_mode`: "next_step", "same_step" or "disabled"). Infos are
    Gymnasium's vector form: each info column an array over the environments with its `_key` mask; under
    `same_step`, `final_obs` and `final_info` for the environments that ended. Seeding as `Gym2048VectorEnv`'s:
    `reset(seed=s)` seeds environment i with the i+1-th SplitMix64 output of s (the engine's derivation)."""

    metadata = {"render_modes": RENDER_MODES, "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: str, num_envs: int = 1, render_mode: Optional[str] = None, backend: str = "inprocess",
                 binary: Optional[str] = None, **options: Any) -> None:
        _check_render_mode(self, render_mode)
        mode = options.get("autoreset_mode")
        if isinstance(mode, AutoresetMode):
            options["autoreset_mode"] = {value: name for name, value in AUTORESET_MODES.items()}[mode]
        self.render_mode = render_mode
        self._session = None
        # One environment is the engine's single form (no autoreset there): the vector's is done here.
        self._open(game, backend, binary, {"num_envs": num_envs, **options})
        self.num_envs = int(self.spec_info["num_envs"])
        self._single = self.num_envs == 1
        self.single_observation_space = observation_space(self.spec_info)
        self.single_action_space = spaces.Discrete(self._actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.autoreset_mode = AUTORESET_MODES[self.spec_info["config"]["autoreset_mode"]]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self._over = False
        self._reset_once = False
        self._action = self._session.actions
        self._finals = self._columns.get("final")
        self._final_info_columns = [(name, self._columns["final_" + name].view(array.dtype))
                                    for name, array in self._info_columns if self._finals is not None]

    def _infos(self, columns: Optional[list[tuple[str, npt.NDArray[Any]]]] = None,
               present: Optional[npt.NDArray[np.bool_]] = None) -> dict[str, Any]:
        mark = np.ones(self.num_envs, dtype=np.bool_) if present is None else present
        out: dict[str, Any] = {}
        for name, array in self._info_columns if columns is None else columns:
            out[name] = array.copy()
            out["_" + name] = mark
        return out

    def reset(self, *, seed: Optional[int | list[Optional[int]]] = None, options: Optional[dict[str, Any]] = None
              ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Reset every environment. `seed`: an int (environment i gets the i+1-th SplitMix64 output of it), a
        sequence of `num_envs` ints or None (None keeps that environment's stream) or None."""
        self._reset_options(options)
        base, seeds = vector_seeds(seed, self.num_envs)
        if base is not None:
            super().reset(seed=base)
        elif not self._reset_once and seeds is None:
            # Gymnasium's convention: an unseeded first reset draws its seed from np_random.
            base = int(self.np_random.integers(0, 2**63))
        params: dict[str, Any] = {}
        if self._single:
            # The engine's single environment takes its seed as given: the vector's lane 0 seed is derived here.
            single = seeds[0] if seeds is not None else None if base is None else splitmix64(base, 1)[0]
            if single is not None:
                params["seed"] = single
        elif seeds is not None:
            params["seeds"] = seeds
        elif base is not None:
            params["seed"] = base
        self._live().reset(params)
        self._over, self._reset_once = False, True
        self._show()
        return self._observations.copy(), self._infos()

    def step(self, actions: Any) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any],
                                          dict[str, Any]]:
        self._action[:] = action_array(actions, self.num_envs, self._actions - 1)
        session = self._live()
        if self._single:
            step = self._step_single(session)
            self._show()
            return step
        session.step()
        self._show()
        infos = self._infos()
        finals = self._finals
        if finals is not None and finals.any():
            self._add_finals(infos, finals.copy(), self._columns["final_observation"])
        return (self._observations.copy(), self._rewards.astype(np.float64), self._terminated.copy(),
                self._truncated.copy(), infos)

    def _add_finals(self, infos: dict[str, Any], ended: npt.NDArray[np.bool_], observations: npt.NDArray[Any],
                    columns: Optional[list[tuple[str, npt.NDArray[Any]]]] = None) -> None:
        """Gymnasium's same-step finals: `final_obs` (an object array, None where no episode ended) and
        `final_info` (the final infos in vector form), each with its mask."""
        final = np.full(self.num_envs, None, dtype=object)
        for index in np.flatnonzero(ended):
            final[index] = observations[index].copy()
        infos["final_obs"], infos["_final_obs"] = final, ended
        infos["final_info"] = self._infos(self._final_info_columns if columns is None else columns, ended)
        infos["_final_info"] = ended

    def _step_single(self, session: Any) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any],
                                                   npt.NDArray[Any], dict[str, Any]]:
        """One environment: the engine's single form, with the vector's autoreset done here."""
        if self._over and self.autoreset_mode == AutoresetMode.NEXT_STEP:
            session.reset({})
            self._over = False
            return (self._observations.copy(), np.zeros(1), np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.bool_),
                    self._infos())
        session.step()
        rewards, terminated, truncated = self._rewards.astype(np.float64), self._terminated.copy(), self._truncated.copy()
        self._over = bool(terminated[0] or truncated[0])
        if not (self._over and self.autoreset_mode == AutoresetMode.SAME_STEP):
            return self._observations.copy(), rewards, terminated, truncated, self._infos()
        ended_observation = self._observations.copy()
        ended_info = [(name, array.copy()) for name, array in self._info_columns]
        session.reset({})
        self._over = False
        infos = self._infos()
        self._add_finals(infos, np.ones(1, dtype=np.bool_), ended_observation, ended_info)
        return self._observations.copy(), rewards, terminated, truncated, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """(num_envs, actions) bools: the legal actions of each environment's current state."""
        if self._mask is None:
            return np.ones((self.num_envs, self._actions), dtype=np.bool_)
        masks: npt.NDArray[np.bool_] = self._mask.astype(np.bool_)
        return masks

    def render(self) -> Any:
        """One render per environment, as a tuple: "ansi" its text, "rgb_array" its image; "human" prints them
        all (reset and step do it too) and returns None; None without a mode."""
        rendered = _rendered(self.render_mode, self._render_text().split("\n\n") if self.render_mode else [])
        return tuple(rendered) if rendered is not None else None

    def close_extras(self, **kwargs: Any) -> None:
        self._close_session()


def games() -> list[dict[str, Any]]:
    """The games the engine serves, each with its `name`, `summary`, `options` and Gymnasium `id`."""
    from .native import games_table
    return [{**game, "id": "Gym2048-v0" if game["name"] == "2048" else env_id(game["name"])} for game in games_table()]

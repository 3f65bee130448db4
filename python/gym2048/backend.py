"""One backend interface, two transports: the engine in this process (`InProcessBackend`, the default) or in a
`g2048 serve` child (`ServerBackend`).

Both send the same JSON to the same engine code (`make` options, `reset` parameters), so both accept and refuse
the same values with the same exception and message, report the same `spec_info` (the engine's `spec`), and give
the same numpy results for the same seeds and actions. The environments in `env.py` and `vector.py` are written
once against this interface.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import numpy as np
import numpy.typing as npt

from .client import G2048
from .native import InProcessSession
from .wire import Decoder

#: The transports, by the name `backend=` takes.
BACKENDS = ("inprocess", "server")

Single = tuple[npt.NDArray[Any], float, bool, bool, dict[str, Any]]
Batch = tuple[npt.NDArray[Any], npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]


def reset_params(seed: Optional[int], seeds: Optional[Sequence[Optional[int]]],
                 options: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """The protocol's `reset` parameters: what is given, passed on as it is for the engine to check (a misspelt
    reset option is refused there, not ignored)."""
    params: dict[str, Any] = {}
    if seed is not None:
        params["seed"] = seed
    if seeds is not None:
        params["seeds"] = list(seeds)
    if options is not None:
        params["options"] = options
    return params


class Backend:
    """What the environments need of a transport. `spec_info` is the engine's `spec`; single-environment methods
    apply to a session of one environment, batch methods to a vector."""

    spec_info: dict[str, Any]
    #: Reads the protocol's results of this configuration (`call`'s, in either backend) into numpy.
    decoder: Decoder

    def reset_one(self, params: Mapping[str, Any]) -> tuple[npt.NDArray[Any], bool, dict[str, Any]]:
        """(observation, over at once, info)."""
        raise NotImplementedError

    def step_one(self, action: int) -> Single:
        raise NotImplementedError

    def reset_batch(self, params: Mapping[str, Any]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        raise NotImplementedError

    def step_batch(self, actions: npt.NDArray[Any]) -> Batch:
        raise NotImplementedError

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Any protocol method: its result as JSON gives it."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    @property
    def server_pid(self) -> Optional[int]:
        return None


class InProcessBackend(Backend):
    """The engine in this process: results written by the engine into reused numpy buffers."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self._session = InProcessSession(options)
        self.spec_info = self._session.spec_info
        self.decoder = Decoder(self.spec_info)

    def reset_one(self, params: Mapping[str, Any]) -> tuple[npt.NDArray[Any], bool, dict[str, Any]]:
        s = self._session
        return s.reset(params, lambda: (s.observations[0].copy(), bool(s.terminations[0]), s.info(0)))  # type: ignore[no-any-return]

    def step_one(self, action: int) -> Single:
        s = self._session
        s.actions[0] = action
        result: Single = s.step(None, lambda: (s.observations[0].copy(), float(s.rewards.item(0)),
                                               bool(s.terminations.item(0)), bool(s.truncations.item(0)), s.info(0)))
        return result

    def reset_batch(self, params: Mapping[str, Any]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        s = self._session
        return s.reset(params, lambda: (s.observations.copy(), s.infos(s.columns)))  # type: ignore[no-any-return]

    def step_batch(self, actions: npt.NDArray[Any]) -> Batch:
        return self._session.step(actions, self._read_batch)  # type: ignore[no-any-return]

    def _read_batch(self) -> Batch:
        s = self._session
        infos = s.infos(s.columns)
        if s.finals is not None:
            finals = s.finals.copy()
            final = np.full(s.num_envs, None, dtype=object)
            assert s.final_observations is not None
            for index in np.flatnonzero(finals):
                final[index] = s.final_observations[index].copy()
            infos["final_obs"], infos["_final_obs"] = final, finals
            # As the server backend decodes it: no keys at all when no episode ended.
            infos["final_info"] = s.infos(s.final_columns, present=finals) if finals.any() else {}
            infos["_final_info"] = finals.copy()
        return (s.observations.copy(), s.reward_values.copy(), s.terminations.copy(), s.truncations.copy(),
                infos)

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        return self._session.call(method, params)

    def close(self) -> None:
        self._session.close()


class ServerBackend(Backend):
    """The engine in a `g2048 serve` child process, through the protocol client."""

    def __init__(self, options: Mapping[str, Any], binary: Optional[str] = None) -> None:
        self._client = G2048(binary=binary, **options)
        self.spec_info = self._client.spec_info
        self.decoder = self._decoder = Decoder(self.spec_info)

    def reset_one(self, params: Mapping[str, Any]) -> tuple[npt.NDArray[Any], bool, dict[str, Any]]:
        result = self._client.call("reset", params)
        return (self._decoder.observation(result["observation"]), bool(result.get("terminated")),
                self._decoder.info(result["info"]))

    def step_one(self, action: int) -> Single:
        result = self._client.step(action)
        return (self._decoder.observation(result["observation"]), float(result["reward"]),
                bool(result["terminated"]), bool(result["truncated"]), self._decoder.info(result["info"]))

    def reset_batch(self, params: Mapping[str, Any]) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        result = self._client.call("reset", params)
        return self._decoder.observations(result["observation"]), self._decoder.infos(result["info"])

    def step_batch(self, actions: npt.NDArray[Any]) -> Batch:
        result = self._client.step_vector((actions.astype(np.uint8) + 48).tobytes().decode("ascii"))
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

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        return self._client.call(method, params)

    def close(self) -> None:
        self._client.close()

    @property
    def server_pid(self) -> Optional[int]:
        return None if self._client.closed else self._client.pid


def make_backend(backend: str, options: Mapping[str, Any], binary: Optional[str] = None) -> Backend:
    """The transport named `backend`, made with the `make` options."""
    if backend == "inprocess":
        return InProcessBackend(options)
    if backend == "server":
        return ServerBackend(options, binary)
    raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")

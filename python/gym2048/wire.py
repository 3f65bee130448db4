"""Decoding of server results into numpy arrays, for every observation encoding and info layout.

`exponents`, `values` and `onehot` arrive as nested JSON lists; `base64` as one base64 string per board (a list
of them in vector mode); `base64_batch` as one base64 string per vector column: the boards of all environments
(environment-major, row-major exponent bytes), rewards and counters as little-endian int64, flags as bytes 0/1,
action masks as one byte per environment (bit i = action i).
"""

from __future__ import annotations

import binascii
from typing import Any, Mapping, Optional, Sequence

import numpy as np
import numpy.typing as npt

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_LOOKUP = bytes.maketrans(_ALPHABET + b"=", bytes(range(64)) + b"\0")
#: Row b is the action mask of mask byte b (bit i = action i), for b in 0..255 (high bits ignored).
_MASKS = ((np.arange(256)[:, None] >> np.arange(4)) & 1).astype(np.int8)

#: Info columns that base64_batch sends as little-endian int64.
INT64_COLUMNS = frozenset({"score", "max_tile", "steps"})
#: Info columns that base64_batch sends as one byte 0/1 per environment.
FLAG_COLUMNS = frozenset({"invalid", "won"})


def decode_bytes(text: str) -> npt.NDArray[np.uint8]:
    """The bytes of one base64 string, as uint8."""
    return np.frombuffer(binascii.a2b_base64(text), dtype=np.uint8)


def decode_int64(text: str) -> npt.NDArray[np.int64]:
    """Little-endian int64 values of one base64 string (a writable array)."""
    return np.frombuffer(binascii.a2b_base64(text), dtype="<i8").astype(np.int64)


def decode_rows(texts: Sequence[str], size: int) -> npt.NDArray[np.uint8]:
    """Decode equal-length base64 strings at once (numpy), each to `size` bytes: shape (len(texts), size).

    256 calls to base64.b64decode cost more than the server's whole step; one
    table lookup and a few shifts over the joined text do not.
    """
    sextets = "".join(texts).encode("ascii").translate(_LOOKUP)
    v = np.frombuffer(sextets, dtype=np.uint8).reshape(len(texts), -1, 4)
    out = np.empty((len(texts), v.shape[1], 3), dtype=np.uint8)
    out[..., 0] = (v[..., 0] << 2) | (v[..., 1] >> 4)
    out[..., 1] = (v[..., 1] << 4) | (v[..., 2] >> 2)
    out[..., 2] = (v[..., 2] << 6) | v[..., 3]
    return out.reshape(len(texts), -1)[:, :size]


def mask_from_bits(bits: npt.NDArray[np.uint8]) -> npt.NDArray[np.int8]:
    """Action masks from one byte per environment (bit i = action i): shape (n, 4), int8 0/1."""
    # One table lookup: several times cheaper than shifting a (n, 4) array, on every vector step.
    masks: npt.NDArray[np.int8] = _MASKS.take(bits, axis=0)
    return masks


# What stands for a field of an environment that has no info object (null in a same_step `final_info`).
_ABSENT: dict[str, Any] = {"action_mask": [0, 0, 0, 0], "score": 0, "max_tile": 0, "steps": 0, "invalid": False,
                           "won": False, "afterstate": None, "spawn": None, "moves": None}


class Decoder:
    """Turns the results of one server configuration (its `spec`) into numpy arrays."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        observation = spec["observation"]
        self.encoding: str = observation["encoding"]
        self.shape: tuple[int, ...] = tuple(observation["shape"])
        self.dtype = np.dtype(observation["dtype"])
        self.num_envs: int = spec["num_envs"]
        self.board_shape = (spec["rows"], spec["cols"])
        self.board_size = spec["rows"] * spec["cols"]

    # -- observations -----------------------------------------------------------------------------------
    def observation(self, raw: Any) -> npt.NDArray[Any]:
        """One environment's observation."""
        if isinstance(raw, str):
            return decode_bytes(raw).reshape(self.shape)
        return np.asarray(raw, dtype=self.dtype).reshape(self.shape)

    def observations(self, raw: Any) -> npt.NDArray[Any]:
        """A vector's observations: shape (num_envs, *shape)."""
        n = self.num_envs
        if isinstance(raw, str):  # base64_batch: one string for the batch
            return decode_bytes(raw).reshape((n, *self.shape))
        if raw and isinstance(raw[0], str):  # base64: one string per environment
            return decode_rows(raw, self.board_size).reshape((n, *self.shape))
        return np.asarray(raw, dtype=self.dtype).reshape((n, *self.shape))

    def board(self, raw: Any) -> npt.NDArray[Any]:
        """An afterstate or final observation of one environment, in the observation's encoding."""
        return self.observation(raw)

    # -- step columns -----------------------------------------------------------------------------------
    @staticmethod
    def rewards(raw: Any) -> npt.NDArray[np.float64]:
        """A vector's rewards, float64."""
        if isinstance(raw, str):
            return np.frombuffer(binascii.a2b_base64(raw), dtype="<i8").astype(np.float64)
        return np.asarray(raw, dtype=np.float64)

    @staticmethod
    def flags(raw: Any) -> npt.NDArray[np.bool_]:
        """A vector's terminated or truncated flags, bool."""
        if isinstance(raw, str):
            flags: npt.NDArray[np.bool_] = decode_bytes(raw) != 0
            return flags
        return np.asarray(raw, dtype=np.bool_)

    # -- infos ------------------------------------------------------------------------------------------
    def info(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """One environment's info: `action_mask` as int8 array of 4, `afterstate` as an array (or None)."""
        info = dict(raw)
        if "action_mask" in info:
            info["action_mask"] = np.asarray(info["action_mask"], dtype=np.int8)
        if info.get("afterstate") is not None:
            info["afterstate"] = self.board(info["afterstate"])
        return info

    def infos(self, raw: Any) -> dict[str, Any]:
        """A vector's info in Gymnasium's vector form: one array per key (first axis = environment) and a
        boolean `_key` array saying which environments have it. Accepts both info layouts."""
        n = self.num_envs
        given = np.ones(n, dtype=bool)
        if isinstance(raw, list):  # info_layout "rows": one object per environment, or null (same_step final_info)
            given = np.array([entry is not None for entry in raw], dtype=bool)
            sample: Mapping[str, Any] = next((entry for entry in raw if entry is not None), {})
            raw = {key: [entry[key] if entry is not None else _ABSENT.get(key) for entry in raw] for key in sample}
        infos: dict[str, Any] = {}
        for key, value in raw.items():
            array, present = self._column(key, value, n)
            infos[key] = array
            infos["_" + key] = present & given
        return infos

    def _column(self, key: str, value: Any, n: int) -> tuple[Any, npt.NDArray[np.bool_]]:
        everyone = np.ones(n, dtype=bool)
        if isinstance(value, str):  # a base64 column
            if key == "action_mask":
                return mask_from_bits(decode_bytes(value)), everyone
            if key == "afterstate":
                boards = decode_bytes(value).reshape((n, *self.board_shape))
                # All zeros stands for "none" (after a reset): a real afterstate always holds a tile.
                present = np.asarray(boards.reshape(n, -1).any(axis=1), dtype=np.bool_)
                return boards, present
            if key in INT64_COLUMNS:
                return decode_int64(value), everyone
            if key in FLAG_COLUMNS:
                return decode_bytes(value) != 0, everyone
            return np.full(n, value, dtype=object), everyone
        if key == "action_mask":
            return np.asarray(value, dtype=np.int8).reshape(n, 4), everyone
        if key == "afterstate":
            present = np.array([entry is not None for entry in value], dtype=bool)
            first = next((entry for entry in value if entry is not None), None)
            if first is None:
                shape = self.board_shape if self.encoding.startswith("base64") else self.shape
                return np.zeros((n, *shape), dtype=self.dtype), present
            sample = self.board(first)
            boards = np.zeros((n, *sample.shape), dtype=sample.dtype)
            for index, entry in enumerate(value):
                if entry is not None:
                    boards[index] = self.board(entry)
            return boards, present
        if all(isinstance(entry, (bool, int, float)) for entry in value):
            return np.asarray(value), everyone
        array = np.empty(n, dtype=object)
        array[:] = value
        return array, np.array([entry is not None for entry in value], dtype=bool)

    def final_observations(self, raw: Optional[Sequence[Any]]) -> npt.NDArray[np.object_]:
        """`final_observation` of a same-step result: an object array with the decoded final observation of
        each environment that finished, None elsewhere (Gymnasium's `final_obs`)."""
        out = np.full(self.num_envs, None, dtype=object)
        for index, entry in enumerate(raw or ()):
            if entry is not None:
                out[index] = self.board(entry)
        return out

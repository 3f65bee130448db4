"""The engine in-process: `libgym2048` through ctypes (no compiler needed at install), stepped into numpy
arrays this module owns and reuses. One C call steps the whole batch; nothing per environment happens in Python.

`NativeBatch` takes the same options as the server (`rows`, `cols`, `num_envs`, `spawn_four_probability`, ...)
and returns results decoded exactly as the server backend's `Decoder` decodes them, so that both backends give
identical arrays and info dictionaries for the same seeds, options and actions.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np
import numpy.typing as npt

from .client import G2048Error, G2048OptionError, G2048ParamsError, INVALID_PARAMS, find_repository

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY_NAME = "libgym2048.so"

#: The options the in-process backend understands: the server's (`spec()["config"]`), by the same names.
OPTIONS = ("rows", "cols", "num_envs", "spawn_four_probability", "initial_tiles", "win_tile", "max_steps",
           "invalid_action", "invalid_action_penalty", "observation", "onehot_channels", "info", "info_layout",
           "autoreset_mode")
ENCODINGS = ("exponents", "values", "onehot", "base64", "base64_batch")
INFO_FIELDS = ("action_mask", "score", "max_tile", "steps", "afterstate", "spawn", "invalid", "won", "moves")
_POLICIES = {"noop": 0, "terminate": 1, "reject": 2}
_AUTORESET = {"next_step": 0, "same_step": 1, "disabled": 2}
# g2048_status values (gym2048.h).
_OK, _INVALID_ARGUMENT, _INVALID_HANDLE, _NOT_RESET, _ILLEGAL_ACTION, _EPISODE_OVER, _TOO_SMALL = range(7)
# The protocol's codes for the same failures, so an error reads the same from either backend.
_PROTOCOL_CODES = {_INVALID_ARGUMENT: INVALID_PARAMS, _NOT_RESET: -32001, _EPISODE_OVER: -32002,
                   _ILLEGAL_ACTION: -32003, _INVALID_HANDLE: -32000, _TOO_SMALL: -32000}
#: The info fields kept in one column of one entry per environment: the column's name in g2048_info_buffers and
#: its dtype. (action_mask is the (num_envs, 4) column legal_actions; afterstate and spawn have their own shapes.)
_SCALAR_COLUMNS = {"score": ("scores", np.int64),
                   "max_tile": ("max_tiles", np.int64), "steps": ("steps", np.int64),
                   "invalid": ("invalid", np.bool_), "won": ("won", np.bool_)}


def find_library() -> str:
    """The path of libgym2048.so: $G2048_LIB, else the package's lib/ (a wheel), else the repository's
    .build/release (an editable install or a checkout). Raises G2048Error naming what was tried."""
    override = os.environ.get("G2048_LIB")
    if override:
        if not os.path.isfile(override):
            raise G2048Error(None, f"G2048_LIB is {override!r}, which is not a file")
        return os.path.abspath(override)
    tried = [os.path.join(_PACKAGE, "lib", _LIBRARY_NAME)]
    root = find_repository()
    if root is not None:
        tried.append(os.path.join(root, ".build", "release", _LIBRARY_NAME))
    for path in tried:
        if os.path.isfile(path):
            return path
    raise G2048Error(None, f"{_LIBRARY_NAME} not found (tried {', '.join(tried)}); build it with "
                           "`swift build -c release --product gym2048`, set G2048_LIB, or use backend=\"server\"")


class _Rules(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int32), ("cols", ctypes.c_int32), ("spawn_four_probability", ctypes.c_double),
                ("initial_tiles", ctypes.c_int32), ("win_tile", ctypes.c_int64), ("max_steps", ctypes.c_int64),
                ("invalid_action", ctypes.c_int32), ("invalid_action_penalty", ctypes.c_int64)]


_INFO_COLUMNS = ("action_masks", "scores", "max_tiles", "steps", "invalid", "won", "afterstates", "spawn_cells",
                 "spawn_exponents", "legal_actions")


class _InfoBuffers(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in _INFO_COLUMNS]


class _Buffers(ctypes.Structure):
    _fields_ = [("num_envs", ctypes.c_int64), ("observations", ctypes.c_void_p), ("rewards", ctypes.c_void_p),
                ("terminations", ctypes.c_void_p), ("truncations", ctypes.c_void_p), ("info", _InfoBuffers),
                ("finals", ctypes.c_void_p), ("final_observations", ctypes.c_void_p), ("final_info", _InfoBuffers)]


class _EnvInfo(ctypes.Structure):
    _fields_ = [("num_envs", ctypes.c_int64), ("rows", ctypes.c_int32), ("cols", ctypes.c_int32),
                ("largest_exponent", ctypes.c_int32), ("autoreset_mode", ctypes.c_int32)]


_library: Optional[ctypes.CDLL] = None


def library() -> ctypes.CDLL:
    """The loaded library, with every function's signature declared (loaded once per process)."""
    global _library
    if _library is None:
        lib = ctypes.CDLL(find_library())
        p, i64, i32, u64p = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_void_p
        signatures = {
            "g2048_library_version": ([], ctypes.c_char_p), "g2048_abi_version": ([], i32),
            "g2048_rules_version": ([], i32), "g2048_last_error": ([], ctypes.c_char_p),
            "g2048_create": ([ctypes.POINTER(_Rules), i32, i64, ctypes.c_uint64, ctypes.POINTER(i64)], i32),
            "g2048_destroy": ([i64], i32),
            "g2048_env_info_get": ([i64, ctypes.POINTER(_EnvInfo)], i32),
            "g2048_reset": ([i64, u64p, p, ctypes.POINTER(_Buffers)], i32),
            "g2048_reset_each": ([i64, p, p, p, ctypes.POINTER(_Buffers)], i32),
            "g2048_reset_one": ([i64, i64, u64p, ctypes.POINTER(_Buffers)], i32),
            "g2048_step": ([i64, p, i64, ctypes.POINTER(_Buffers)], i32),
            "g2048_afterstates": ([i64, i64, p, p, p], i32),
            "g2048_render": ([i64, i32, p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)], i32),
        }
        for name, (argtypes, restype) in signatures.items():
            function = getattr(lib, name)
            function.argtypes, function.restype = argtypes, restype
        if lib.g2048_abi_version() != 1:
            raise G2048Error(None, f"{find_library()} has ABI version {lib.g2048_abi_version()}; this package needs 1")
        _library = lib
    return _library


def _check(status: int) -> None:
    if status == _OK:
        return
    message = library().g2048_last_error().decode("utf-8", "replace")
    code = _PROTOCOL_CODES.get(status, -32000)
    if code == INVALID_PARAMS:
        raise G2048ParamsError(code, f"invalid params: {message}")
    raise G2048Error(code, message)


def _encode(boards: npt.NDArray[np.uint8], encoding: str, channels: int) -> npt.NDArray[Any]:
    """Exponent boards (..., rows, cols) in `encoding` (a new array)."""
    if encoding == "values":
        values: npt.NDArray[np.int64] = np.where(boards > 0, np.left_shift(1, boards.astype(np.int64)), 0)
        return values
    if encoding == "onehot":
        planes = np.minimum(boards, channels - 1)
        onehot: npt.NDArray[np.uint8] = (planes[..., None, :, :] == np.arange(channels)[:, None, None]).astype(np.uint8)
        return onehot
    copied: npt.NDArray[np.uint8] = boards.copy()
    return copied


def _pointer(array: Optional[npt.NDArray[Any]]) -> Optional[int]:
    return None if array is None else int(array.ctypes.data)


class NativeBatch:
    """`num_envs` environments in-process, with the server's options and the server backend's decoded results."""

    def __init__(self, **options: Any) -> None:
        for name in options:
            if name not in OPTIONS:
                raise G2048OptionError(INVALID_PARAMS, f"invalid params: unknown option '{name}' "
                                                       f"(options: {', '.join(OPTIONS)})")
        self.handle: Optional[int] = None
        lib = library()
        self.rows, self.cols = int(options.get("rows", 4)), int(options.get("cols", 4))
        self.num_envs = int(options.get("num_envs", 1))
        self.encoding = self._choice(options, "observation", "exponents", ENCODINGS)
        self.info_fields = tuple(options.get("info", INFO_FIELDS[:-1]))
        for field in self.info_fields:
            if field == "moves":
                raise G2048ParamsError(INVALID_PARAMS, "invalid params: info 'moves' is served by backend=\"server\" "
                                                       "only (the in-process backend has no tile movements)")
            if field not in INFO_FIELDS:
                raise G2048ParamsError(INVALID_PARAMS, f"invalid params: info has an unknown field '{field}' "
                                                       f"(fields: {', '.join(INFO_FIELDS)})")
        self._choice(options, "info_layout", "rows", ("rows", "columns"))
        self.autoreset_mode = self._choice(options, "autoreset_mode", "next_step", tuple(_AUTORESET))
        policy = self._choice(options, "invalid_action", "noop", tuple(_POLICIES))
        rules = _Rules(self.rows, self.cols, float(options.get("spawn_four_probability", 0.1)),
                       int(options.get("initial_tiles", 2)), int(options.get("win_tile") or 0),
                       int(options.get("max_steps") or 0), _POLICIES[policy],
                       int(options.get("invalid_action_penalty", 0)))
        if options.get("win_tile") == 0 or options.get("max_steps") == 0:
            name = "win_tile" if options.get("win_tile") == 0 else "max_steps"
            raise G2048ParamsError(INVALID_PARAMS, f"invalid params: {name} must be null (off) or a valid value, got 0")
        handle = ctypes.c_int64()
        _check(lib.g2048_create(ctypes.byref(rules), _AUTORESET[self.autoreset_mode], self.num_envs, 0,
                                ctypes.byref(handle)))
        self.handle = handle.value
        info = _EnvInfo()
        _check(lib.g2048_env_info_get(self.handle, ctypes.byref(info)))
        self.largest_exponent = info.largest_exponent
        channels = options.get("onehot_channels", self.rows * self.cols + 2)
        if not (isinstance(channels, int) and 2 <= channels <= 64):
            raise G2048ParamsError(INVALID_PARAMS, f"invalid params: onehot_channels must be between 2 and 64, "
                                                   f"got {channels!r}")
        self.channels = channels
        n, shape = self.num_envs, (self.num_envs, self.rows, self.cols)
        self.observations = np.zeros(shape, np.uint8)
        self.rewards = np.zeros(n, np.int64)
        self.terminations = np.zeros(n, np.bool_)
        self.truncations = np.zeros(n, np.bool_)
        self.columns = self._columns()
        same_step = self.autoreset_mode == "same_step"
        self.finals = np.zeros(n, np.bool_) if same_step else None
        self.final_observations = np.zeros(shape, np.uint8) if same_step else None
        self.final_columns = self._columns() if same_step else {}
        self._buffers = _Buffers(n, _pointer(self.observations), _pointer(self.rewards), _pointer(self.terminations),
                                 _pointer(self.truncations), self._info_buffers(self.columns), _pointer(self.finals),
                                 _pointer(self.final_observations), self._info_buffers(self.final_columns))
        self._buffers_ref = ctypes.byref(self._buffers)
        # The step's own action buffer, and its address, found once (`.ctypes.data` costs a microsecond).
        self.actions = np.zeros(n, np.uint8)
        self._actions_pointer = _pointer(self.actions)
        self._all = np.ones(n, np.bool_)
        self._step_function = lib.g2048_step
        # The step with the batch's own action buffer, its arguments made once as ctypes values: a call through
        # argtypes converts each argument anew, half of a one-environment step's call.
        self._step_own = lib["g2048_step"]
        self._step_own.restype = ctypes.c_int32
        self._step_own_arguments = (ctypes.c_int64(self.handle), ctypes.c_void_p(self._actions_pointer),
                                    ctypes.c_int64(n), self._buffers_ref)
        self._readers = self._field_readers(self.columns)

    @staticmethod
    def _choice(options: Mapping[str, Any], name: str, default: str, choices: Sequence[str]) -> str:
        value = options.get(name, default)
        if value not in choices:
            raise G2048ParamsError(INVALID_PARAMS, f"invalid params: {name} must be one of "
                                                   f"{', '.join(choices)}, got {value!r}")
        return str(value)

    def _columns(self) -> dict[str, npt.NDArray[Any]]:
        n, fields = self.num_envs, self.info_fields
        columns: dict[str, npt.NDArray[Any]] = {}
        if "action_mask" in fields:
            # int8 0/1, the dtype of the server backend's masks; the library writes the bytes.
            columns["legal_actions"] = np.zeros((n, 4), np.int8)
        for field, (column, dtype) in _SCALAR_COLUMNS.items():
            if field in fields:
                columns[column] = np.zeros(n, dtype)
        if "afterstate" in fields:
            columns["afterstates"] = np.zeros((n, self.rows, self.cols), np.uint8)
        if "spawn" in fields:
            columns["spawn_cells"] = np.full(n, -1, np.int8)
            columns["spawn_exponents"] = np.zeros(n, np.uint8)
        return columns

    @staticmethod
    def _info_buffers(columns: Mapping[str, npt.NDArray[Any]]) -> _InfoBuffers:
        return _InfoBuffers(*(_pointer(columns.get(name)) for name in _INFO_COLUMNS))

    # -- calls ------------------------------------------------------------------------------------------
    def _live(self) -> int:
        if self.handle is None:
            raise G2048Error(None, "the in-process environment is closed")
        return self.handle

    def reset(self, seed: Optional[int] = None, seeds: Optional[Sequence[Optional[int]]] = None,
              board: Optional[Sequence[Any]] = None) -> None:
        """Reset every environment into the buffers (seed: one for the batch; seeds: one per environment)."""
        handle, lib = self._live(), library()
        board_array = None
        if board is not None:
            board_array = np.asarray(board, dtype=object).reshape(-1)
            if board_array.size != self.rows * self.cols:
                raise G2048ParamsError(INVALID_PARAMS, f"invalid params: options.board must have {self.rows} rows "
                                                       f"of {self.cols} tile values")
            board_array = np.array([int(v) for v in board_array], dtype=np.int64)
        board_pointer = _pointer(board_array)
        if seeds is not None:
            given = np.array([s is not None for s in seeds], dtype=np.uint8)
            values = np.array([0 if s is None else int(s) & (2**64 - 1) for s in seeds], dtype=np.uint64)
            _check(lib.g2048_reset_each(handle, _pointer(values), _pointer(given), board_pointer, self._buffers_ref))
        else:
            seed_value = None if seed is None else ctypes.byref(ctypes.c_uint64(int(seed) & (2**64 - 1)))
            _check(lib.g2048_reset(handle, seed_value, board_pointer, self._buffers_ref))

    def reset_one(self, index: int, seed: Optional[int] = None) -> None:
        seed_value = None if seed is None else ctypes.byref(ctypes.c_uint64(int(seed) & (2**64 - 1)))
        _check(library().g2048_reset_one(self._live(), index, seed_value, self._buffers_ref))

    def step(self, actions: Optional[npt.NDArray[np.uint8]] = None) -> None:
        """Step every environment with `actions` (a C-contiguous uint8 array of num_envs entries 0..3), by default
        with `self.actions`, which the caller fills."""
        if actions is None:
            self._live()
            status = self._step_own(*self._step_own_arguments)
        else:
            status = self._step_function(self._live(), actions.ctypes.data, actions.size, self._buffers_ref)
        if status != _OK:
            _check(status)

    def afterstates(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
        n = self.num_envs
        legal, rewards = np.zeros((n, 4), np.uint8), np.zeros((n, 4), np.int64)
        boards = np.zeros((n, 4, self.rows, self.cols), np.uint8)
        _check(library().g2048_afterstates(self._live(), n, _pointer(legal), _pointer(rewards), _pointer(boards)))
        return legal.astype(bool), rewards, boards

    def render(self, ansi: bool = False) -> str:
        handle, lib = self._live(), library()
        needed = ctypes.c_size_t()
        lib.g2048_render(handle, int(ansi), None, 0, ctypes.byref(needed))
        text = ctypes.create_string_buffer(needed.value)
        _check(lib.g2048_render(handle, int(ansi), text, needed.value, ctypes.byref(needed)))
        return text.value.decode("utf-8")

    def close(self) -> None:
        if self.handle is not None and _library is not None:
            library().g2048_destroy(self.handle)
        self.handle = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    # -- decoding, as the server backend's Decoder gives it -----------------------------------------------
    @property
    def high(self) -> int:
        return 1 if self.encoding == "onehot" else (2 ** self.largest_exponent if self.encoding == "values"
                                                    else self.largest_exponent)

    def encode(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[Any]:
        """Exponent boards (..., rows, cols) in the configured encoding (a new array)."""
        return _encode(boards, self.encoding, self.channels)

    def infos(self, columns: Mapping[str, npt.NDArray[Any]], present: Optional[npt.NDArray[np.bool_]] = None
              ) -> dict[str, Any]:
        """A vector info dictionary (Gymnasium's form, with `_key` arrays), the fields in the configured order."""
        n = self.num_envs
        given = self._all.copy() if present is None else present
        out: dict[str, Any] = {}
        for field in self.info_fields:
            mark = given
            if field == "action_mask":
                value: Any = columns["legal_actions"].copy()
            elif field in _SCALAR_COLUMNS:
                value = columns[_SCALAR_COLUMNS[field][0]].copy()
            elif field == "afterstate":
                boards = columns["afterstates"]
                mark = given & boards.reshape(n, -1).any(axis=1)
                value = self.encode(boards) if self.encoding in ("values", "onehot") else boards.copy()
            else:  # spawn
                cells, exponents = columns["spawn_cells"], columns["spawn_exponents"]
                value = np.empty(n, dtype=object)
                value[:] = [None if cells[i] < 0 else {"cell": int(cells[i]), "value": 1 << int(exponents[i])}
                            for i in range(n)]
                mark = given & (cells >= 0)
            out[field] = value
            out["_" + field] = mark
        return out

    def info(self, index: int) -> dict[str, Any]:
        """One environment's info, as the single environment's server backend gives it."""
        return {field: read(index) for field, read in self._readers}

    def _field_readers(self, columns: Mapping[str, npt.NDArray[Any]]) -> list[tuple[str, Callable[[int], Any]]]:
        """For each info field in order, a function of an environment's index that reads its value, worked out once
        (a single environment's step reads them all, and every branch and lookup there costs)."""
        readers: list[tuple[str, Callable[[int], Any]]] = []
        for field in self.info_fields:
            if field == "action_mask":
                masks = columns["legal_actions"]
                readers.append((field, lambda index: masks[index].copy()))
            elif field in _SCALAR_COLUMNS:
                readers.append((field, columns[_SCALAR_COLUMNS[field][0]].item))
            elif field == "afterstate":
                # Not self.encode: a reader that holds the batch would keep it (and its handle) alive in a cycle.
                boards, encoding, channels = columns["afterstates"], self.encoding, self.channels
                readers.append((field, lambda index: _encode(boards[index], encoding, channels)
                                if boards[index].any() else None))
            else:
                cells, exponents = columns["spawn_cells"], columns["spawn_exponents"]
                readers.append((field, lambda index: None if cells[index] < 0 else
                                {"cell": int(cells[index]), "value": 1 << int(exponents[index])}))
        return readers

"""The engine in-process: `libgym2048` through ctypes (no compiler needed at install), a thin binding.

A handle is a session of the protocol made from the same JSON `make` takes, checked by the engine's own code,
so the in-process and server backends accept and refuse exactly the same options, with the same messages. Reset
and step write their results straight into numpy arrays this module owns and reuses, in the configured
encoding: nothing is encoded or checked again in Python. Every other protocol method is one `call`.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from typing import Any, Callable, Mapping, Optional

import numpy as np
import numpy.typing as npt

from .client import G2048Error, error_from, find_repository, to_json
from .handles import HandleOwner

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY_NAME = "libgym2048.so"
#: The C ABI this module is written against (gym2048.h's G2048_ABI_VERSION).
ABI_VERSION = 13
_OK = 0
#: The info fields kept in one column of one entry per environment: the column's name in g2048_info_buffers and
#: its dtype. (action_mask is the (num_envs, 4) column legal_actions; afterstate and spawn have their own shapes.)
_SCALAR_COLUMNS = {"score": ("scores", np.int64), "max_tile": ("max_tiles", np.int64), "steps": ("steps", np.int64),
                   "invalid": ("invalid", np.bool_), "won": ("won", np.bool_)}
_INFO_COLUMNS = ("action_masks", "scores", "max_tiles", "steps", "invalid", "won", "afterstates", "spawn_cells",
                 "spawn_exponents", "legal_actions")


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


class _InfoBuffers(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in _INFO_COLUMNS]


class _Buffers(ctypes.Structure):
    _fields_ = [("num_envs", ctypes.c_int64), ("observations", ctypes.c_void_p), ("rewards", ctypes.c_void_p),
                ("terminations", ctypes.c_void_p), ("truncations", ctypes.c_void_p), ("info", _InfoBuffers),
                ("finals", ctypes.c_void_p), ("final_observations", ctypes.c_void_p), ("final_info", _InfoBuffers),
                ("reward_values", ctypes.c_void_p)]


_library: Optional[ctypes.CDLL] = None
_library_lock = threading.Lock()


def library() -> ctypes.CDLL:
    """The loaded library, with every function's signature declared (loaded once per process)."""
    global _library
    with _library_lock:
        if _library is None:
            lib = ctypes.CDLL(find_library())
            p, i64, i32, text = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_char_p
            out_text = ctypes.POINTER(ctypes.c_char_p)
            signatures = {
                "g2048_library_version": ([], text), "g2048_abi_version": ([], i32),
                "g2048_rules_version": ([], i32), "g2048_last_error": ([], text),
                "g2048_last_error_json": ([], text), "g2048_options": ([], text),
                "g2048_make": ([text, ctypes.POINTER(i64)], i32), "g2048_destroy": ([i64], i32),
                "g2048_call": ([i64, text, text, out_text], i32), "g2048_spec": ([i64, out_text], i32),
                "g2048_reset": ([i64, text, ctypes.POINTER(_Buffers)], i32),
                "g2048_step": ([i64, p, i64, ctypes.POINTER(_Buffers)], i32),
                "g2048_player_load": ([text, ctypes.POINTER(i64)], i32), "g2048_player_destroy": ([i64], i32),
                "g2048_player_info": ([i64, out_text], i32), "g2048_player_values": ([i64, p, i64, p], i32),
                "g2048_player_moves": ([i64, p, i64, i32, p], i32),
                "g2048_evaluation_report": ([text, i32, i32, p, p, p, i64, ctypes.c_double, out_text], i32),
                "g2048_solution_load": ([text, ctypes.POINTER(i64)], i32), "g2048_solution_destroy": ([i64], i32),
                "g2048_solution_info": ([i64, out_text], i32), "g2048_solution_action_values": ([i64, p, i64, p], i32),
                "g2048_solution_values": ([i64, p, i64, p], i32), "g2048_solution_moves": ([i64, p, i64, p], i32),
                "g2048_exact_begin": ([i64, i32, i32, ctypes.POINTER(i64)], i32), "g2048_exact_destroy": ([i64], i32),
                "g2048_exact_next": ([i64, ctypes.POINTER(i64)], i32), "g2048_exact_boards": ([i64, p, p], i32),
                "g2048_exact_answer": ([i64, p, i64], i32), "g2048_exact_result": ([i64, text, out_text], i32),
                "g2048_exact_progress": ([i64] + [ctypes.POINTER(i64)] * 5, i32),
                "g2048_games": ([], text), "g2048_columns": ([i64, out_text], i32),
                "g2048_reset_columns": ([i64, text, p, i64], i32), "g2048_step_columns": ([i64, p, i64, p, i64], i32),
                "g2048_protocols": ([], text), "g2048_action_alphabet": ([], text), "g2048_games_verify": ([p, i64, text, out_text], i32),
                "g2048_games_record": ([text, text, text, text, i64, p, p, p, out_text], i32),
                "g2048_learner_make": ([text, ctypes.POINTER(i64)], i32), "g2048_learner_destroy": ([i64], i32),
                "g2048_learner_train": ([i64, i64, ctypes.c_double, i32, out_text], i32),
                "g2048_learner_save": ([i64, text], i32), "g2048_learner_info": ([i64, out_text], i32),
                "g2048_learner_weights": ([i64, p, i64], i32), "g2048_learner_set_weights": ([i64, p, i64], i32),
                "g2048_learner_delta": ([i64, p, p, i64, ctypes.POINTER(i64)], i32),
                "g2048_learner_apply_delta": ([i64, p, p, i64], i32), "g2048_learner_assign": ([i64, p, p, i64], i32), "g2048_learner_settings": ([], text),
                "g2048_learner_games": ([i64, out_text], i32),
                "g2048_learner_record": ([i64, text, ctypes.c_double], i32),
            }
            for name, (argtypes, restype) in signatures.items():
                function = getattr(lib, name)
                function.argtypes, function.restype = argtypes, restype
            if lib.g2048_abi_version() != ABI_VERSION:
                raise G2048Error(None, f"{find_library()} has ABI version {lib.g2048_abi_version()}; this package "
                                       f"needs {ABI_VERSION} (rebuild it, or reinstall the package)")
            _library = lib
    return _library


def options_table() -> list[dict[str, Any]]:
    """The engine's options: one dict each with name, flag, type, bounds or choices, default and help."""
    table: list[dict[str, Any]] = json.loads(library().g2048_options())
    return table


def games_table() -> list[dict[str, Any]]:
    """The games the engine serves (`g2048_games`), the default first: one dict each with its `name`, `summary`
    and `options` (each as `options_table` describes one)."""
    games: list[dict[str, Any]] = json.loads(library().g2048_games())["games"]
    return games


#: The C ABI's column dtypes (g2048_columns) as numpy's.
COLUMN_DTYPES: dict[str, type[Any]] = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int64": np.int64,
                                       "float32": np.float32, "float64": np.float64}


def column_arrays(layout: list[dict[str, Any]], num_envs: int, shape: tuple[int, ...]) -> dict[str, npt.NDArray[Any]]:
    """One zeroed array per column of `layout` (g2048_columns' list): `(num_envs, *shape)` for the observation and
    its final, `(num_envs,)` for a column of width one, `(num_envs, width)` otherwise."""
    arrays: dict[str, npt.NDArray[Any]] = {}
    for column in layout:
        name, width = column["name"], column["width"]
        size = shape if name in ("observation", "final_observation") else () if width == 1 else (width,)
        arrays[name] = np.zeros((num_envs, *size), COLUMN_DTYPES[column["dtype"]])
    return arrays


def _raise_last() -> None:
    raise error_from(json.loads(library().g2048_last_error_json()))


def _pointer(array: Optional[npt.NDArray[Any]]) -> Optional[int]:
    return None if array is None else int(array.ctypes.data)


def _output(given: dict[str, npt.NDArray[Any]], name: str, shape: tuple[int, ...],
            dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """The caller's array `name` (taken out of `given`) if it has exactly `shape` and `dtype` and is C-contiguous and
    writable (the engine writes its bytes), else a ValueError saying what differs; a new array when not given."""
    array = given.pop(name, None)
    if array is None:
        return np.zeros(shape, dtype)
    if not isinstance(array, np.ndarray) or array.shape != shape or array.dtype != dtype:
        got = f"{array.shape} {array.dtype}" if isinstance(array, np.ndarray) else type(array).__name__
        raise ValueError(f"the {name} buffer must be a {shape} {dtype} array, got {got}")
    if not array.flags.c_contiguous or not array.flags.writeable:
        raise ValueError(f"the {name} buffer must be C-contiguous and writable")
    return array


class CallSession(HandleOwner):
    """A protocol session in this process answered in JSON (`g2048_call`): the door of every game, and the base of
    `InProcessSession`, which adds 2048's caller-owned buffers. Calls take turns (a lock); a session inherited by a
    forked child is refused there (its lock is the parent's), and a copy is refused (it would share the handle)."""

    _what = "this in-process environment"
    _after_fork = ("after a fork, make a new environment in the child (the parent's state cannot be shared)")

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.handle: Optional[int] = None
        self._claim()
        self._lock = threading.RLock()
        handle = ctypes.c_int64()
        if library().g2048_make(to_json(options).encode(), ctypes.byref(handle)) != _OK:
            _raise_last()
        self.handle = handle.value

    def _live(self) -> int:
        """The handle, under the lock (``_not_forked`` was checked before taking it)."""
        if self.handle is None:
            raise G2048Error(None, "the in-process environment is closed")
        return self.handle

    def _copy_advice(self) -> str:
        return f"make another {type(self).__name__} with the same options"

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Any protocol method, as `G2048.call` calls it through the pipe: its result, or the engine's error."""
        result = ctypes.c_char_p()
        text = None if params is None else to_json(params).encode()
        self._not_forked()
        with self._lock:
            if library().g2048_call(self._live(), method.encode(), text, ctypes.byref(result)) != _OK:
                _raise_last()
            return json.loads(result.value or b"null")

    def close(self) -> None:
        if self._forked():  # a forked child: the handle is the parent's, and so may be the lock
            self.handle = None
            return
        with self._lock:
            if self.handle is not None and _library is not None:
                library().g2048_destroy(self.handle)
            self.handle = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass


class ColumnSession(CallSession):
    """Any game the engine serves, in this process, through its result columns (g2048_columns): one numpy array per
    column, allocated once, and one C call per reset or step writing them all (g2048_reset_columns,
    g2048_step_columns), the actions read from `self.actions`. `spec` and `layout` are the engine's; every other
    protocol method is `call`."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        lib = library()
        self.spec: dict[str, Any] = self.call("spec")
        text = ctypes.c_char_p()
        with self._lock:
            if lib.g2048_columns(self._live(), ctypes.byref(text)) != _OK:
                _raise_last()
            self.layout: list[dict[str, Any]] = json.loads(text.value or b"[]")
        self.num_envs: int = self.spec["num_envs"]
        self.columns = column_arrays(self.layout, self.num_envs, tuple(self.spec["observation"]["shape"]))
        addresses = (ctypes.c_void_p * len(self.layout))(*(_pointer(self.columns[c["name"]]) for c in self.layout))
        self.actions = np.zeros(self.num_envs, np.int64)
        # The calls' arguments made once as ctypes values (a call through argtypes converts each anew).
        self._reset_fn, self._step_fn = lib["g2048_reset_columns"], lib["g2048_step_columns"]
        self._reset_fn.restype = self._step_fn.restype = ctypes.c_int32
        self._addresses = addresses
        count = ctypes.c_int64(len(self.layout))
        self._step_arguments = (ctypes.c_int64(self._live()), ctypes.c_void_p(_pointer(self.actions)),
                                ctypes.c_int64(self.num_envs), addresses, count)
        self._reset_arguments = (ctypes.c_int64(self._live()), addresses, count)

    def reset(self, params: Mapping[str, Any]) -> None:
        """Reset with the protocol's `params` (`seed`, `seeds`) into the columns."""
        text = to_json(params).encode()
        handle, addresses, count = self._reset_arguments
        self._not_forked()
        with self._lock:
            self._live()
            if self._reset_fn(handle, text, addresses, count) != _OK:
                _raise_last()

    def step(self) -> None:
        """Step every environment with `self.actions` into the columns."""
        self._not_forked()
        with self._lock:
            self._live()
            if self._step_fn(*self._step_arguments) != _OK:
                _raise_last()


class InProcessSession(CallSession):
    """One protocol session in this process: `make` options in, numpy results out, as `g2048 serve` gives them.

    Calls take turns (a lock): threads sharing it get whole results, never one step's observation with another's
    info. A session inherited by a forked child is refused there (its lock and buffers are the parent's).
    """

    def __init__(self, options: Mapping[str, Any], outputs: Optional[Mapping[str, npt.NDArray[Any]]] = None) -> None:
        """`outputs` may give caller-owned arrays for `observations`, `terminations` and `truncations` (a trainer's
        shared buffers): the engine then writes there, each checked for its shape, dtype and layout."""
        super().__init__(options)
        lib = library()
        self.spec_info: dict[str, Any] = self.spec()
        spec = self.spec_info
        self.num_envs: int = spec["num_envs"]
        self.rows, self.cols = spec["rows"], spec["cols"]
        self.info_fields: tuple[str, ...] = tuple(spec["config"]["info"])
        observation = spec["observation"]
        self.board_shape = (self.rows, self.cols)
        # The engine writes observations in the configured encoding; base64 forms are exponents in memory.
        self.shape: tuple[int, ...] = tuple(observation["shape"])
        self.dtype = np.dtype(observation["dtype"])
        n, shape = self.num_envs, (self.num_envs, *self.shape)
        given = dict(outputs or {})
        self.observations = _output(given, "observations", shape, self.dtype)
        self.rewards = np.zeros(n, np.int64)
        # The rewards as Gymnasium returns them, written by the engine beside the integers: a copy a step, where
        # a conversion in numpy took twice as long.
        self.reward_values = np.zeros(n, np.float64)
        self.terminations = _output(given, "terminations", (n,), np.dtype(np.bool_))
        self.truncations = _output(given, "truncations", (n,), np.dtype(np.bool_))
        if given:
            raise ValueError(f"unknown output buffer(s) {', '.join(sorted(given))}: the engine writes into "
                             "observations, terminations and truncations")
        self.columns = self._columns()
        same_step = spec["config"]["autoreset_mode"] == "same_step" and n > 1
        self.finals = np.zeros(n, np.bool_) if same_step else None
        self.final_observations = np.zeros(shape, self.dtype) if same_step else None
        self.final_columns = self._columns() if same_step else {}
        self._buffers = _Buffers(n, _pointer(self.observations), _pointer(self.rewards), _pointer(self.terminations),
                                 _pointer(self.truncations), self._info_buffers(self.columns), _pointer(self.finals),
                                 _pointer(self.final_observations), self._info_buffers(self.final_columns),
                                 _pointer(self.reward_values))
        self._buffers_ref = ctypes.byref(self._buffers)
        # The step's own action buffer, and a call with its arguments made once as ctypes values: a call through
        # argtypes converts each argument anew, half of a one-environment step's cost.
        self.actions = np.zeros(n, np.uint8)
        self._step_own = lib["g2048_step"]
        self._step_own.restype = ctypes.c_int32
        self._step_own_arguments = (ctypes.c_int64(self._live()), ctypes.c_void_p(_pointer(self.actions)),
                                    ctypes.c_int64(n), self._buffers_ref)
        self._all = np.ones(n, np.bool_)
        self._readers = self._field_readers(self.columns)
        # Each info field in the configured order, with its `_` key and, for a plain copy of a column, the column.
        plain = {"action_mask": "legal_actions", **{field: column for field, (column, _) in _SCALAR_COLUMNS.items()}}
        self._plain_fields = [(field, "_" + field, plain.get(field)) for field in self.info_fields]

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
            columns["afterstates"] = np.zeros((n, *self.shape), self.dtype)
        if "spawn" in fields:
            columns["spawn_cells"] = np.full(n, -1, np.int8)
            columns["spawn_exponents"] = np.zeros(n, np.uint8)
        return columns

    @staticmethod
    def _info_buffers(columns: Mapping[str, npt.NDArray[Any]]) -> _InfoBuffers:
        return _InfoBuffers(*(_pointer(columns.get(name)) for name in _INFO_COLUMNS))

    # -- calls ------------------------------------------------------------------------------------------
    def spec(self) -> dict[str, Any]:
        result = ctypes.c_char_p()
        self._not_forked()
        with self._lock:
            if library().g2048_spec(self._live(), ctypes.byref(result)) != _OK:
                _raise_last()
            spec: dict[str, Any] = json.loads(result.value or b"null")
            return spec

    def reset(self, params: Mapping[str, Any], read: Callable[[], Any]) -> Any:
        """Reset with the protocol's `params` into the buffers, then `read` them, under the session's lock."""
        text = to_json(params).encode()
        self._not_forked()
        with self._lock:
            if library().g2048_reset(self._live(), text, self._buffers_ref) != _OK:
                _raise_last()
            return read()

    def step(self, actions: Optional[npt.NDArray[Any]], read: Callable[[], Any]) -> Any:
        """Step with `actions` (num_envs entries 0..3), by default `self.actions`, then `read` the buffers."""
        self._not_forked()
        with self._lock:
            self._live()
            if actions is not None:
                np.copyto(self.actions, actions, casting="unsafe")
            if self._step_own(*self._step_own_arguments) != _OK:
                _raise_last()
            return read()

    # -- reading the buffers, as the server backend's Decoder decodes a result ---------------------------
    def infos(self, columns: Mapping[str, npt.NDArray[Any]], present: Optional[npt.NDArray[np.bool_]] = None
              ) -> dict[str, Any]:
        """A vector info dictionary (Gymnasium's form, with `_key` arrays), the fields in the configured order."""
        n = self.num_envs
        given = self._all.copy() if present is None else present
        out: dict[str, Any] = {}
        for field, marker, column in self._plain_fields:
            # The fields that are a column's copy (the mask, the counters): read without tests on every step.
            if column is not None:
                out[field] = columns[column].copy()
                out[marker] = given
                continue
            mark = given
            value: Any
            if field == "afterstate":
                boards = columns["afterstates"]
                mark = given & boards.reshape(n, -1).any(axis=1)
                value = boards.copy()
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
                boards = columns["afterstates"]
                readers.append((field, lambda index: boards[index].copy() if boards[index].any() else None))
            else:
                cells, exponents = columns["spawn_cells"], columns["spawn_exponents"]
                readers.append((field, lambda index: None if cells[index] < 0 else
                                {"cell": int(cells[index]), "value": 1 << int(exponents[index])}))
        return readers


"""The protocol client for `g2048 serve`: the Gym2048 environment over JSON-RPC 2.0 on a pipe.

Standard library only, so scripts can use it without numpy or gymnasium::

    from gym2048.client import G2048
    with G2048(rows=4, cols=4) as env:
        result = env.reset(seed=42)
        step = env.step("left")            # or 0..3: up, right, down, left
        print(step["reward"], step["info"]["action_mask"])

    with G2048(num_envs=256, observation="base64") as envs:   # the vector form
        envs.reset(seed=1)
        envs.step_vector([0] * 256)

The server binary is found by :func:`find_binary`.
"""

from __future__ import annotations

import json
import math
import os
import select
import signal
import subprocess
import threading
import time
import weakref
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from .handles import HandleOwner

ACTIONS = ("up", "right", "down", "left")
#: The actions as messages list them.
ACTION_NAMES = ", ".join(ACTIONS)
_PACKAGE = os.path.dirname(os.path.abspath(__file__))

#: The JSON-RPC code of "invalid params": a bad option, action, seed or board.
INVALID_PARAMS = -32602

#: Seconds a request waits for the server before the client gives up on it (`G2048(timeout=...)`): generous, since
#: a `make` of 65 536 environments or a vector step of them takes well under a second.
DEFAULT_TIMEOUT = 60.0
#: The longest reply read (bytes): the server refuses configurations whose results could exceed 256 MiB.
MAX_REPLY_BYTES = 512 << 20
#: Seconds close() gives a server to exit politely before it is terminated, then killed.
_CLOSE_GRACE = 2.0


class G2048Error(Exception):
    """An error from the server (`code` is its JSON-RPC code) or about starting it (`code` is None).

    `message` is the server's message, unchanged.
    """

    def __init__(self, code: Union[int, str, None], message: Optional[str] = None) -> None:
        # The one-argument form (a message, code None) lets callers that re-raise `type(error)(text)` work,
        # as gymnasium.make does for a TypeError from an environment's constructor.
        if message is None:
            code, message = None, str(code)
        assert not isinstance(code, str)
        super().__init__(message if code is None else f"{message} (code {code})")
        self.code: Optional[int] = code
        self.message: str = message


class G2048ConnectionError(G2048Error, ConnectionError):
    """The server went away or its pipe failed (code None). Also a ConnectionError."""


class G2048ParamsError(G2048Error, ValueError):
    """The server refused a parameter (-32602): a bad option value, action, seed or board. Also a ValueError."""


class G2048OptionError(G2048ParamsError, TypeError):
    """The server does not know an option given as a keyword. Also a TypeError, like any unexpected keyword."""


def error_from(error: Mapping[str, Any]) -> G2048Error:
    """The exception that fits a protocol error object (from the server, or from the in-process engine, which
    gives the same objects): its `data` says when an option is unknown."""
    code, message, data = error["code"], error["message"], error.get("data")
    if code == INVALID_PARAMS:
        if isinstance(data, dict) and data.get("reason") == "unknown":
            return G2048OptionError(code, message)
        return G2048ParamsError(code, message)
    return G2048Error(code, message)


def _check_json(name: str, value: Any) -> None:
    """Refuse what JSON cannot spell anywhere in `value`, naming where it is: NaN and the infinities, and values that
    are no JSON at all (a complex number, bytes, a set, an object), so that they never reach the engine and never
    fail as a serializer's error that names nothing (the same message from either backend)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise G2048ParamsError(INVALID_PARAMS, f"invalid params: {name} must be a finite number, got {value} "
                                                   "(JSON, and so the engine, has no NaN or infinity)")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check_json(f"{name}.{key}" if name else str(key), item)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_json(f"{name}[{index}]", item)
    elif hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        _check_json(name, value.tolist())
    elif value is not None and not isinstance(value, (bool, int, str)):
        raise G2048ParamsError(INVALID_PARAMS, f"invalid params: {name} must be a number, text, true or false, null, "
                                               f"a list or an object, got {type(value).__name__} {value!r:.40}")


def to_json(params: Mapping[str, Any]) -> str:
    """Request parameters or `make` options as the JSON text both backends send to the engine: numpy scalars and
    arrays become plain numbers and lists, and NaN or an infinity is a G2048ParamsError naming where it is."""
    _check_json("", params)
    return json.dumps(params, separators=(",", ":"), default=_json_default, allow_nan=False)


def find_repository(start: str = _PACKAGE) -> Optional[str]:
    """The nearest folder at or above `start` that holds the Swift package's Package.swift, or None."""
    folder = os.path.abspath(start)
    while True:
        if os.path.isfile(os.path.join(folder, "Package.swift")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary() -> str:
    """The path of the `g2048` executable the clients start.

    In order: `$G2048_BIN` (which must then be an executable file), the binary installed inside the package
    (`gym2048/bin/g2048`, put there by `pip install`), the repository's `.build/release/g2048` (for
    `pip install -e` and scripts run from a clone). Raises G2048Error (code None) saying what to do otherwise.
    """
    override = os.environ.get("G2048_BIN")
    if override is not None:
        if not _executable(override):
            raise G2048Error(None, f"G2048_BIN is {override!r}, which is not an executable file: "
                                   "point it at a built g2048 or unset it")
        # The file checked is the file run: a relative name is resolved here, not looked up on PATH later.
        return os.path.abspath(override)
    installed = os.path.join(_PACKAGE, "bin", "g2048")
    if _executable(installed):
        return installed
    repository = find_repository()
    if repository is not None:
        built = os.path.join(repository, ".build", "release", "g2048")
        if _executable(built):
            return built
        raise G2048Error(None, f"g2048 is not built: run `swift build -c release --product g2048` in {repository}, "
                               "or set G2048_BIN to a built g2048")
    raise G2048Error(None, "g2048 not found: install gym2048 with pip (it builds the server), "
                           "or set G2048_BIN to a built g2048")


def server_state(pid: int) -> str:
    """What the process is doing, from /proc (Linux), for an error message: "running", "stopped", ..."""
    names = {"R": "running", "S": "sleeping", "D": "waiting on a device", "T": "stopped (SIGSTOP?)",
             "t": "stopped by a debugger", "Z": "a zombie (it exited)", "X": "dead"}
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "in an unknown state"
    return names.get(state, f"in state {state}")


def _stop(process: "subprocess.Popen[bytes]", owner: int) -> None:
    """End a server process: close its input (the server exits at end of input) and wait a moment; then
    terminate it, then kill it (a stopped process ends only on SIGKILL). Always returns.

    Used by close() and by the finalizer of a client dropped without close(), so it must not refer to the client.
    In a forked child (`owner` is the parent) it does nothing: the server is the parent's.
    """
    if os.getpid() != owner:
        return
    if process.poll() is None:
        try:
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        for action in (None, process.terminate, process.kill):
            if action is not None:
                try:
                    action()
                except OSError:
                    pass
            try:
                process.wait(timeout=_CLOSE_GRACE)
                break
            except subprocess.TimeoutExpired:
                continue
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


_DIGITS = {0: "0", 1: "1", 2: "2", 3: "3"}


class G2048(HandleOwner):
    """One `g2048 serve` child process and the protocol's methods.

    Keyword options are the protocol's `make` options (see `spec()["config"]` for their names); the server
    checks them, and a refused one raises G2048OptionError (unknown name, a TypeError) or G2048ParamsError
    (bad value, a ValueError) with the server's message. The process ends on close(), at the end of a
    `with` block, or when the client is garbage-collected.

    Every request has a deadline (`timeout` seconds, DEFAULT_TIMEOUT by default): a server that does not answer in
    time (stopped, hung, gone) is a G2048Error naming its state, and the client is closed, since a late answer
    would be taken for the next request's. Requests from several threads take turns (a lock), every reply's id
    is checked against its request's, and a client used after a fork in the child is refused (the pipe is the
    parent's), as is a copy (it would share the pipe). close() always returns, from any thread.
    """

    _what = "this client's server"
    _after_fork = "after a fork, make a new environment in the child (the parent's pipe cannot be shared)"

    def __init__(self, binary: Optional[str] = None, *, timeout: float = DEFAULT_TIMEOUT, **options: Any) -> None:
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0):
            raise ValueError(f"timeout must be a number of seconds above 0, got {timeout!r}")
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._claim()
        self._process = subprocess.Popen(
            [binary or find_binary(), "serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        # An env dropped without close() must not leave its server running: the finalizer stops it.
        self._finalizer = weakref.finalize(self, _stop, self._process, self._owner)
        assert self._process.stdin is not None and self._process.stdout is not None
        self._in = self._process.stdin.fileno()
        self._out = self._process.stdout.fileno()
        # Non-blocking both ways: every wait is a select() with the request's deadline.
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        self._next_id = 0
        try:
            self.spec_info: dict[str, Any] = self.make(**options) if options else self.spec()
        except BaseException:
            self.close()
            raise

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self._process.pid

    @property
    def closed(self) -> bool:
        """True once close() ran (or the finalizer did)."""
        return not self._finalizer.alive

    # -- transport -----------------------------------------------------------------
    def _copy_advice(self) -> str:
        return "start another G2048 with the same options (each client has a server of its own)"

    def _usable(self) -> None:
        if not self._finalizer.alive:
            raise G2048Error(None, "the g2048 server is closed")

    def _fail(self, message: str) -> G2048Error:
        """The client cannot go on (the stream is out of step): stop the server at once and say why."""
        try:
            self._process.kill()
        except OSError:
            pass
        self._finalizer()
        return G2048Error(None, message)

    def _wait(self, fd: int, deadline: float, writing: bool) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                state = server_state(self._process.pid)
                raise self._fail(f"the g2048 server (pid {self._process.pid}) did not "
                                 f"{'take the request' if writing else 'answer'} within {self.timeout:g} s; it is "
                                 f"{state}. The client is closed (a late answer would be taken for another request's)")
            try:
                ready = select.select([] if writing else [fd], [fd] if writing else [], [], remaining)
            except InterruptedError:
                continue
            except (OSError, ValueError):  # the descriptor was closed by close() in another thread
                raise G2048ConnectionError(None, "the g2048 server was closed during the request") from None
            if ready[0] or ready[1]:
                return

    def _send(self, line: str, deadline: float) -> None:
        data = memoryview(line.encode())
        while data:
            self._wait(self._in, deadline, writing=True)
            try:
                written = os.write(self._in, data)
            except BlockingIOError:
                continue
            except OSError as error:  # EPIPE: the server is gone
                raise G2048ConnectionError(None, f"g2048 serve exited (see its stderr): {error}") from None
            data = data[written:]

    def _read(self, deadline: float) -> bytes:
        self._wait(self._out, deadline, writing=False)
        try:
            chunk = os.read(self._out, 1 << 20)
        except BlockingIOError:
            return self._read(deadline)
        except OSError as error:
            raise G2048ConnectionError(None, f"the g2048 server's output failed: {error}") from None
        if not chunk:
            raise G2048ConnectionError(None, "g2048 serve exited (see its stderr)")
        return chunk

    def _readline(self, deadline: float) -> bytes:
        if not self._buffer:
            # The common case: one read returns exactly one response line.
            chunk = self._read(deadline)
            if chunk.endswith(b"\n") and chunk.count(b"\n") == 1:
                return chunk[:-1]
            self._buffer += chunk
        scanned = 0  # the buffer before this holds no newline: each byte is searched once
        while True:
            newline = self._buffer.find(b"\n", scanned)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                return line
            scanned = len(self._buffer)
            if scanned > MAX_REPLY_BYTES:
                raise self._fail(f"the g2048 server sent a line longer than {MAX_REPLY_BYTES} bytes; the client "
                                 "is closed")
            self._buffer += self._read(deadline)

    def request_line(self, line: str) -> bytes:
        """Send one raw request line (without newline) and return the raw response line."""
        self._not_forked()  # before the lock, which a thread of the parent may have held at a fork
        with self._lock:
            self._usable()
            deadline = time.monotonic() + self.timeout
            self._send(line + "\n", deadline)
            return self._readline(deadline)

    def _result(self, line: str, request_id: int) -> Any:
        """Send a request line and return its result, or raise G2048Error: the server's error, or one that names
        what was received when the reply is not a JSON-RPC response to this request."""
        raw = self.request_line(line)
        try:
            response = json.loads(raw)
        except ValueError as error:  # JSONDecodeError, or invalid UTF-8
            raise self._fail(f"the g2048 server answered request {request_id} with a line that is not JSON "
                             f"({error}): {_shown(raw)}; the client is closed") from None
        if isinstance(response, dict) and "id" in response and response["id"] is None and _error_of(response):
            # The server could not read this request (a line over its --max-line-bytes) and answered its line with
            # id null, having skipped it: one line, one answer, so the stream is in step and nothing changed.
            raise G2048ParamsError(response["error"]["code"], f"{response['error']['message']}; this request is "
                                   f"{len(line.encode())} bytes, and nothing was changed")
        if not isinstance(response, dict) or response.get("id") != request_id:
            got = response.get("id") if isinstance(response, dict) else type(response).__name__
            raise self._fail(f"the g2048 server answered request {request_id} with id {got!r}: the stream is out of "
                             "step; the client is closed")
        if "error" in response:
            failure = response["error"]
            if not _error_of(response):
                raise self._fail(f"the g2048 server answered request {request_id} with a malformed error: "
                                 f"{_shown(raw)}; the client is closed")
            raise error_from(failure)
        if "result" not in response:
            raise self._fail(f"the g2048 server answered request {request_id} with neither a result nor an error: "
                             f"{_shown(raw)}; the client is closed")
        return response["result"]

    def _take_id(self) -> int:
        self._not_forked()
        with self._lock:
            self._next_id += 1
            return self._next_id

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        """Call `method` with `params` (a dict) and return its result, or raise G2048Error."""
        request_id = self._take_id()
        request: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            _check_json("", params)
            request["params"] = params
        return self._result(json.dumps(request, separators=(",", ":"), default=_json_default, allow_nan=False),
                            request_id)

    # -- methods ---------------------------------------------------------------------
    def spec(self) -> dict[str, Any]:
        """Shapes, bounds, action names and the full configuration."""
        result: dict[str, Any] = self.call("spec")
        return result

    def make(self, **options: Any) -> dict[str, Any]:
        """Change the configuration (any subset of the options); returns the new spec. Reset afterwards."""
        self.spec_info = self.call("make", options)
        return self.spec_info

    def reset(self, seed: Optional[int] = None, board: Optional[Sequence[Sequence[int]]] = None,
              seeds: Optional[Sequence[Optional[int]]] = None) -> dict[str, Any]:
        """Start new episodes: {"observation", "terminated", "info"} (lists of them in vector mode).

        `seed` seeds every environment from one number (environment i of a vector gets the i+1-th output of
        SplitMix64 seeded with it); `seeds` gives one seed (or None: continue its stream) per environment.
        `board` (tile values) starts from a custom board.
        """
        params: dict[str, Any] = {}
        if seed is not None:
            params["seed"] = seed
        if seeds is not None:
            params["seeds"] = list(seeds)
        if board is not None:
            params["options"] = {"board": board}
        result: dict[str, Any] = self.call("reset", params)
        return result

    def step(self, action: Union[int, str]) -> dict[str, Any]:
        """One step of a single environment; `action` is 0..3 or a name. Returns the result dict."""
        try:
            digit = _DIGITS.get(action) if not isinstance(action, (str, bool)) else None
        except TypeError:  # unhashable (a list, a dict): the server's message says what an action is
            digit = None
        if digit is None:  # anything but 0..3: the server checks it and answers with its message
            return self.call("step", {"action": action})  # type: ignore[no-any-return]
        request_id = self._take_id()
        line = '{"jsonrpc":"2.0","id":%d,"method":"step","params":{"action":%s}}' % (request_id, digit)
        return self._result(line, request_id)  # type: ignore[no-any-return]

    def step_vector(self, actions: Union[str, Iterable[Any]]) -> dict[str, Any]:
        """One step of every environment of a vector; `actions` has one entry (0..3) per environment.

        Sent as the protocol's compact form, a string of digits ("0312…"), when every entry is 0..3;
        otherwise as a list, so the server answers a bad entry with its own message (G2048ParamsError).
        """
        if isinstance(actions, str):
            if not (actions.isdigit() and actions.isascii()):  # JSON-escaped, for the server to judge
                return self.call("step", {"actions": actions})  # type: ignore[no-any-return]
            digits: Optional[str] = actions
            entries: Any = actions
        else:
            entries = list(actions)
            try:
                digits = "".join([_DIGITS[a] for a in entries if not isinstance(a, bool)])
                if len(digits) != len(entries):
                    digits = None
            except (KeyError, TypeError):
                digits = None
        if digits is None or len(digits) != self.spec_info["num_envs"]:
            # As a list, so that the server's message speaks of the entries the caller gave.
            return self.call("step", {"actions": entries})  # type: ignore[no-any-return]
        request_id = self._take_id()
        line = '{"jsonrpc":"2.0","id":%d,"method":"step","params":{"actions":"%s"}}' % (request_id, digits)
        return self._result(line, request_id)  # type: ignore[no-any-return]

    def afterstates(self) -> Any:
        """For each action: legal, reward and the afterstate, without changing anything."""
        return self.call("afterstates")["afterstates"]

    def render(self, ansi: bool = False) -> str:
        """The board as text (a vector's boards separated by blank lines)."""
        text: str = self.call("render", {"ansi": True} if ansi else None)["text"]
        return text

    def games_record(self, player: str, games: Sequence[tuple[int, Sequence[int]]],
                     protocol: Optional[str] = None) -> str:
        """The games record (docs/RECORDS.md) of `games`, each a (seed, actions) pair of a game played to its end in
        this session's rules, written by the engine from a replay of each: what `g2048 eval --record` writes."""
        listed = [{"seed": int(seed), "actions": [int(action) for action in actions]} for seed, actions in games]
        text: str = self.call("games_record", {"player": player, "games": listed, "protocol": protocol})["record"]
        return text

    def close(self) -> None:
        """Ask the server to exit and wait for it; terminate, then kill it, if it does not. Always returns, soon,
        from any thread: while another thread's request is in flight, the server is stopped without asking.
        Calling it again does nothing."""
        if not self._finalizer.alive:
            return
        if self._forked():  # a forked child: the server is the parent's to stop
            self._finalizer.detach()
            return
        # Politely only when no other thread's request is in flight (its lock is free).
        if self._process.poll() is None and self._lock.acquire(timeout=0.1):
            self._lock.release()
            timeout, self.timeout = self.timeout, min(self.timeout, _CLOSE_GRACE)
            try:
                self.call("close")
            except (ConnectionError, OSError, G2048Error, ValueError):
                pass
            finally:
                self.timeout = timeout
        self._finalizer()

    def __enter__(self) -> "G2048":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _error_of(response: dict[str, Any]) -> bool:
    """True when `response` holds a well-formed JSON-RPC error object (an int code and a message)."""
    failure = response.get("error")
    return isinstance(failure, dict) and isinstance(failure.get("code"), int) and isinstance(failure.get("message"), str)


def _shown(raw: bytes) -> str:
    """A received line for a message: at most 120 bytes of it, as Python shows bytes."""
    return repr(raw[:120]) + (f" ({len(raw)} bytes)" if len(raw) > 120 else "")


def _json_default(value: Any) -> Any:
    """numpy scalars and arrays in parameters become plain JSON numbers and lists (`_check_json` has refused
    every other value JSON cannot spell before a serializer meets it)."""
    return value.tolist()


def splitmix64(seed: int, count: int) -> list[int]:
    """The first `count` outputs of SplitMix64 seeded with `seed`: the per-environment seeds a vector reset
    with one `seed` gives (environment i gets output i+1, i.e. index i of this list)."""
    mask = (1 << 64) - 1
    state = seed & mask
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append(z ^ (z >> 31))
    return out

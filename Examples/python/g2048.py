"""A stdlib-only client for `g2048 serve`: the Gym2048 environment over JSON-RPC 2.0 on a pipe.

    from g2048 import G2048
    with G2048(rows=4, cols=4) as env:
        result = env.reset(seed=42)
        step = env.step("left")            # or 0..3: up, right, down, left
        print(step["reward"], step["info"]["action_mask"])

    with G2048(num_envs=256, observation="base64") as envs:   # the vector form
        envs.reset(seed=1)
        envs.step_vector([0] * 256)

    replay_record("game.jsonl")            # check a `g2048 play --record` file through the server

The server binary is found from $G2048_BIN, then the package's release and debug
build folders, then `g2048` on the PATH. Build it with `swift build -c release`.
"""

import json
import os
import shutil
import subprocess

ACTIONS = ("up", "right", "down", "left")
_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))


class G2048Error(Exception):
    """A JSON-RPC error returned by the server: `code` and `message`."""

    def __init__(self, code, message):
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message


def find_binary():
    """The path of the g2048 executable, or raise FileNotFoundError saying how to build it."""
    candidates = [os.environ.get("G2048_BIN")]
    candidates += [os.path.join(_REPO, ".build", config, "g2048") for config in ("release", "debug")]
    candidates.append(shutil.which("g2048"))
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError("g2048 not found: run `swift build -c release` in the repository, or set G2048_BIN")


class G2048:
    """One `g2048 serve` child process and the protocol's methods.

    Keyword options are the protocol's `make` options (rows, cols, num_envs,
    spawn_four_probability, initial_tiles, win_tile, max_steps, invalid_action,
    invalid_action_penalty, observation, onehot_channels, info, info_layout,
    autoreset_mode); they are applied with one `make` call after start-up.
    """

    def __init__(self, binary=None, **options):
        self._process = subprocess.Popen(
            [binary or find_binary(), "serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._in = self._process.stdin.fileno()
        self._out = self._process.stdout.fileno()
        self._buffer = b""
        self._next_id = 0
        self.spec_info = self.make(**options) if options else self.spec()

    # -- transport -----------------------------------------------------------------
    def _send(self, line):
        data = line.encode()
        written = os.write(self._in, data)
        while written < len(data):  # a pipe may take a large request in pieces
            data = data[written:]
            written = os.write(self._in, data)

    def _readline(self):
        if not self._buffer:
            # The common case: one read returns exactly one response line.
            chunk = os.read(self._out, 65536)
            if chunk.endswith(b"\n") and chunk.count(b"\n") == 1:
                return chunk[:-1]
            self._buffer = chunk
            if not chunk:
                raise ConnectionError("g2048 serve exited (see its stderr)")
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line, self._buffer = self._buffer[:newline], self._buffer[newline + 1:]
                return line
            # 64 KiB: a larger request makes Python allocate (mmap) that much on every read.
            chunk = os.read(self._out, 65536)
            if not chunk:
                raise ConnectionError("g2048 serve exited (see its stderr)")
            self._buffer += chunk

    def request_line(self, line):
        """Send one raw request line (without newline) and return the raw response line."""
        self._send(line + "\n")
        return self._readline()

    def _result(self, line):
        """Send a request line and return its result, or raise G2048Error."""
        response = json.loads(self.request_line(line))
        if "error" in response:
            raise G2048Error(response["error"]["code"], response["error"]["message"])
        return response["result"]

    def call(self, method, params=None):
        """Call `method` with `params` (a dict) and return its result, or raise G2048Error."""
        self._next_id += 1
        request = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params:
            request["params"] = params
        return self._result(json.dumps(request, separators=(",", ":")))

    # -- methods ---------------------------------------------------------------------
    def spec(self):
        """Shapes, bounds, action names and the full configuration."""
        return self.call("spec")

    def make(self, **options):
        """Change the configuration (any subset of the options); returns the new spec. Reset afterwards."""
        self.spec_info = self.call("make", options)
        return self.spec_info

    def reset(self, seed=None, board=None):
        """Start new episodes: {"observation", "info"} (lists of them in vector mode)."""
        params = {}
        if seed is not None:
            params["seed"] = int(seed)
        if board is not None:
            params["options"] = {"board": [[int(v) for v in row] for row in board]}
        return self.call("reset", params)

    def step(self, action):
        """One step of a single environment; `action` is 0..3 or a name. Returns the result dict."""
        self._next_id += 1
        if isinstance(action, str):
            action = json.dumps(action)
        line = '{"jsonrpc":"2.0","id":%d,"method":"step","params":{"action":%s}}' % (self._next_id, action)
        return self._result(line)

    def step_vector(self, actions):
        """One step of every environment of a vector; `actions` has one entry (0..3) per environment.

        Sent as the protocol's compact form, a string of digits ("0312…").
        """
        self._next_id += 1
        digits = actions if isinstance(actions, str) else "".join("0123"[int(a)] for a in actions)
        line = '{"jsonrpc":"2.0","id":%d,"method":"step","params":{"actions":"%s"}}' % (self._next_id, digits)
        return self._result(line)

    def afterstates(self):
        """For each action: legal, reward and the afterstate, without changing anything."""
        return self.call("afterstates")["afterstates"]

    def render(self, ansi=False):
        """The board as text."""
        return self.call("render", {"ansi": True} if ansi else None)["text"]

    def close(self):
        """Ask the server to exit and wait for it."""
        if self._process.poll() is None:
            try:
                self.call("close")
            except (ConnectionError, BrokenPipeError, OSError):
                pass
            self._process.stdin.close()
            self._process.wait(timeout=10)
        self._process.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- recorded episodes -----------------------------------------------------------------

RECORD_FORMAT = "gym2048-episode"
RECORD_VERSION = 1


class RecordMismatch(Exception):
    """A recorded episode that the server does not reproduce: `episode` (1-based), `step` (0 = the start) and why."""

    def __init__(self, episode, step, message):
        where = "start" if step == 0 else f"step {step}"
        super().__init__(f"episode {episode}, {where}: {message}")
        self.episode = episode
        self.step = step


def read_record(path):
    """The episodes of a `g2048 play --record` file: a list of {"header": dict, "steps": [dict, ...]}.

    The file is JSON Lines: a header line ({"type": "header", "format": "gym2048-episode", "version": 1,
    "rules_version", "seed", "config": <make options>, "target_tile", "player", "board": <exponents>}),
    then one line per step ({"type": "step", "step": n, "action": "left", "reward", "spawn":
    {"cell", "value"} or null, "score"}); a restart starts another header. Raises ValueError naming the
    line for a malformed or truncated file.
    """
    with open(path, "rb") as file:
        data = file.read()
    episodes = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as error:
            if number == len(lines) and not data.endswith(b"\n"):
                raise ValueError(f"{path}: line {number}: truncated record: the last line is incomplete") from None
            raise ValueError(f"{path}: line {number}: not valid JSON ({error})") from None
        kind = line.get("type") if isinstance(line, dict) else None
        if kind == "header":
            if line.get("format") != RECORD_FORMAT:
                raise ValueError(f"{path}: line {number}: \"format\" must be \"{RECORD_FORMAT}\"")
            if not isinstance(line.get("version"), int) or line["version"] > RECORD_VERSION:
                raise ValueError(f"{path}: line {number}: unsupported record version {line.get('version')!r}")
            for key in ("seed", "config", "board"):
                if key not in line:
                    raise ValueError(f"{path}: line {number}: missing \"{key}\"")
            episodes.append({"header": line, "steps": []})
        elif kind == "step":
            if not episodes:
                raise ValueError(f"{path}: line {number}: a step before any header line")
            steps = episodes[-1]["steps"]
            if line.get("step") != len(steps) + 1:
                raise ValueError(f"{path}: line {number}: step {line.get('step')!r} where step {len(steps) + 1} was expected")
            for key in ("action", "reward", "spawn", "score"):
                if key not in line:
                    raise ValueError(f"{path}: line {number}: missing \"{key}\"")
            steps.append(line)
        else:
            raise ValueError(f"{path}: line {number}: \"type\" must be \"header\" or \"step\"")
    if not episodes:
        raise ValueError(f"{path}: the record is empty: no header line")
    return episodes


def replay_record(path, binary=None):
    """Replay a `g2048 play --record` file through `g2048 serve` and check that it reproduces exactly.

    For each episode: `make` with the header's config, `reset` with its seed (the observation must be the
    recorded start board), then `step` every recorded action; each reward, spawn and score must match.
    Returns one summary per episode: {"seed", "steps", "score", "max_tile", "player"}. Raises
    RecordMismatch at the first difference and ValueError for a malformed record.
    """
    episodes = read_record(path)
    summaries = []
    with G2048(binary) as env:
        for index, episode in enumerate(episodes, start=1):
            header = episode["header"]
            spec = env.make(**header["config"])
            if header.get("rules_version") != spec["rules_version"]:
                raise RecordMismatch(index, 0, f"recorded with rules version {header.get('rules_version')}, "
                                               f"the server plays rules version {spec['rules_version']}")
            result = env.reset(seed=header["seed"])
            if result["observation"] != header["board"]:
                raise RecordMismatch(index, 0, f"recorded start board {header['board']}, "
                                               f"seed {header['seed']} gives {result['observation']}")
            ended = False
            for step in episode["steps"]:
                number = step["step"]
                if ended:
                    raise RecordMismatch(index, number, f"the episode ended after step {number - 1}, "
                                                        f"but the record goes on to step {len(episode['steps'])}")
                result = env.step(step["action"])
                info = result["info"]
                for name, replayed in (("reward", result["reward"]), ("spawn", info["spawn"]), ("score", info["score"])):
                    if replayed != step[name]:
                        raise RecordMismatch(index, number, f"{step['action']}: recorded {name} {step[name]!r}, "
                                                            f"replay gives {replayed!r}")
                ended = result["terminated"] or result["truncated"]
            board = result["observation"]
            summaries.append({
                "seed": header["seed"],
                "steps": len(episode["steps"]),
                "score": info["score"] if episode["steps"] else 0,
                "max_tile": max((1 << v) if v else 0 for row in board for v in row),
                "player": header.get("player"),
            })
    return summaries

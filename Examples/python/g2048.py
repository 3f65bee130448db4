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
RECORD_VERSION = 2
_HEADER_MEMBERS = {"type", "format", "version", "rules_version", "seed", "config", "target_tile", "player", "board"}
_CONFIG_MEMBERS = {"rows", "cols", "spawn_four_probability", "initial_tiles", "win_tile", "max_steps",
                   "invalid_action", "invalid_action_penalty"}
_STEP_MEMBERS = {"type", "step", "action", "reward", "spawn", "score"}
_SPAWN_MEMBERS = {"cell", "value"}
_END_MEMBERS = {"type", "steps", "score", "outcome", "last_episode"}


class RecordMismatch(Exception):
    """A recorded episode that the server does not reproduce: `episode` (1-based), `step` (0 = the start) and why."""

    def __init__(self, episode, step, message):
        where = "start" if step == 0 else f"step {step}"
        super().__init__(f"episode {episode}, {where}: {message}")
        self.episode = episode
        self.step = step


def _only(path, number, members, allowed, prefix=""):
    """Refuse a member not in `allowed`, naming it (a misspelt member must not fall back to a default)."""
    for name in members:
        if name not in allowed:
            raise ValueError(f"{path}: line {number}: unknown member \"{prefix}{name}\" "
                             f"(expected one of {', '.join(sorted(allowed))})")


def _no_duplicates(pairs):
    """A json.loads object hook that refuses a member given twice."""
    seen = {}
    for name, value in pairs:
        if name in seen:
            raise ValueError(f"\"{name}\" appears twice")
        seen[name] = value
    return seen


def read_record(path):
    """The episodes of a `g2048 play --record` file: a list of {"header": dict, "steps": [dict, ...], "end": dict}.

    The file is JSON Lines (CRLF accepted): a header line ({"type": "header", "format": "gym2048-episode",
    "version": 2, "rules_version", "seed", "config": <make options>, "target_tile", "player", "board":
    <exponents>}), one line per step ({"type": "step", "step": n, "action": "left", "reward", "spawn":
    {"cell", "value"} or null, "score"}) and an end line ({"type": "end", "steps", "score", "outcome":
    "game_over" or "stopped", "last_episode": bool}); a restart starts another header. Version 1 records
    (no end line) still load, with "end": None. Raises ValueError naming the line for a malformed or
    truncated file, or a member this version does not know.
    """
    with open(path, "rb") as file:
        data = file.read()
    episodes = []
    lines = data.split(b"\n")
    last_line = 0
    for number, raw in enumerate(lines, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip(b" \t"):
            continue
        last_line = number
        try:
            line = json.loads(raw, object_pairs_hook=_no_duplicates)
        except (ValueError, UnicodeDecodeError) as error:
            if number == len(lines) and not data.endswith(b"\n"):
                raise ValueError(f"{path}: line {number}: truncated record: the last line is incomplete") from None
            raise ValueError(f"{path}: line {number}: not valid JSON ({error})") from None
        kind = line.get("type") if isinstance(line, dict) else None
        last = episodes[-1] if episodes else None
        if kind == "header":
            if last is not None and last["version"] != 1 and last["end"] is None:
                raise ValueError(f"{path}: line {number}: a header where the end line of episode {len(episodes)} was expected")
            if last is not None and last["end"] is not None and last["end"]["last_episode"]:
                raise ValueError(f"{path}: line {number}: a header after the end line of episode {len(episodes)}, "
                                 "which says it is the last")
            _only(path, number, line, _HEADER_MEMBERS)
            if line.get("format") != RECORD_FORMAT:
                raise ValueError(f"{path}: line {number}: \"format\" must be \"{RECORD_FORMAT}\"")
            version = line.get("version")
            if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= RECORD_VERSION:
                raise ValueError(f"{path}: line {number}: unsupported record version {version!r}")
            for key in ("seed", "config", "board"):
                if key not in line:
                    raise ValueError(f"{path}: line {number}: missing \"{key}\"")
            if not isinstance(line["config"], dict):
                raise ValueError(f"{path}: line {number}: \"config\" must be an object")
            _only(path, number, line["config"], _CONFIG_MEMBERS, "config.")
            episodes.append({"header": line, "steps": [], "end": None, "version": version})
        elif kind == "step":
            if last is None:
                raise ValueError(f"{path}: line {number}: a step before any header line")
            if last["end"] is not None:
                raise ValueError(f"{path}: line {number}: a step after the end line of episode {len(episodes)}")
            _only(path, number, line, _STEP_MEMBERS)
            steps = last["steps"]
            if line.get("step") != len(steps) + 1:
                raise ValueError(f"{path}: line {number}: step {line.get('step')!r} where step {len(steps) + 1} was expected")
            for key in ("action", "reward", "spawn", "score"):
                if key not in line:
                    raise ValueError(f"{path}: line {number}: missing \"{key}\"")
            if isinstance(line["spawn"], dict):
                _only(path, number, line["spawn"], _SPAWN_MEMBERS, "spawn.")
            steps.append(line)
        elif kind == "end":
            if last is None:
                raise ValueError(f"{path}: line {number}: an end line before any header line")
            if last["end"] is not None:
                raise ValueError(f"{path}: line {number}: a second end line for episode {len(episodes)}")
            if last["version"] == 1:
                raise ValueError(f"{path}: line {number}: an end line in a version 1 record")
            _only(path, number, line, _END_MEMBERS)
            steps = last["steps"]
            if line.get("steps") != len(steps):
                raise ValueError(f"{path}: line {number}: the end line counts {line.get('steps')!r} steps, "
                                 f"but the episode has {len(steps)}")
            final = steps[-1]["score"] if steps else 0
            if line.get("score") != final:
                raise ValueError(f"{path}: line {number}: the end line's score {line.get('score')!r} differs from "
                                 f"the score after the last step, {final}")
            if line.get("outcome") not in ("game_over", "stopped"):
                raise ValueError(f"{path}: line {number}: \"outcome\" must be game_over or stopped")
            if not isinstance(line.get("last_episode"), bool):
                raise ValueError(f"{path}: line {number}: \"last_episode\" must be true or false")
            last["end"] = line
        else:
            raise ValueError(f"{path}: line {number}: \"type\" must be \"header\", \"step\" or \"end\"")
    if not episodes:
        raise ValueError(f"{path}: the record is empty: no header line")
    last = episodes[-1]
    if last["version"] != 1:
        if last["end"] is None:
            where = f"step {len(last['steps'])}" if last["steps"] else "its header"
            raise ValueError(f"{path}: line {last_line}: truncated record: episode {len(episodes)} has no end line "
                             f"(the file ends after {where})")
        if not last["end"]["last_episode"]:
            raise ValueError(f"{path}: line {last_line}: truncated record: the end line of episode {len(episodes)} "
                             "announces another episode, but the file ends there")
    for episode in episodes:
        del episode["version"]
    return episodes


def replay_record(path, binary=None):
    """Replay a `g2048 play --record` file through `g2048 serve` and check that it reproduces exactly.

    For each episode: `make` with the header's config, `reset` with its seed (the observation must be the
    recorded start board), then `step` every recorded action; each reward, spawn and score must match.
    The end line's outcome must agree: "game_over" when no move is left, "stopped" otherwise.
    Returns one summary per episode: {"seed", "steps", "score", "max_tile", "player", "version1"} ("version1":
    the record has no end lines, so a cut at a line boundary could not be detected). Raises RecordMismatch at
    the first difference and ValueError for a malformed or truncated record.
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
            end = episode["end"]
            if end is not None and (end["outcome"] == "game_over") != ended:
                raise RecordMismatch(index, len(episode["steps"]),
                                     "the record says the game was stopped, but no legal move is left" if ended
                                     else "the record says the game was over, but the replay can still move")
            board = result["observation"]
            summaries.append({
                "seed": header["seed"],
                "steps": len(episode["steps"]),
                "score": info["score"] if episode["steps"] else 0,
                "max_tile": max((1 << v) if v else 0 for row in board for v in row),
                "player": header.get("player"),
                "version1": end is None,
            })
    return summaries

"""Recorded episodes: read a `g2048 play --record` file and check it through the server.

    from gym2048 import replay_record
    replay_record("game.jsonl")            # raises RecordMismatch at the first difference
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Optional

from .client import G2048

RECORD_FORMAT = "gym2048-episode"
RECORD_VERSION = 2
_HEADER_MEMBERS = {"type", "format", "version", "rules_version", "seed", "config", "target_tile", "player", "board"}
_STEP_MEMBERS = {"type", "step", "action", "reward", "spawn", "score"}
_SPAWN_MEMBERS = {"cell", "value"}
_END_MEMBERS = {"type", "steps", "score", "outcome", "last_episode"}


class RecordMismatch(Exception):
    """A recorded episode that the server does not reproduce: `episode` (1-based), `step` (0 = the start) and why."""

    def __init__(self, episode: int, step: int, message: str) -> None:
        where = "start" if step == 0 else f"step {step}"
        super().__init__(f"episode {episode}, {where}: {message}")
        self.episode = episode
        self.step = step


def _rules_options() -> set[str]:
    """The names a record's `config` may hold: the engine's rules options (its table, through the library)."""
    from .native import options_table
    return {option["name"] for option in options_table() if option["rules"]}


def _only(path: str, number: int, members: Any, allowed: set[str], prefix: str = "") -> None:
    """Refuse a member not in `allowed`, naming it (a misspelt member must not fall back to a default)."""
    for name in members:
        if name not in allowed:
            raise ValueError(f"{path}: line {number}: unknown member \"{prefix}{name}\" "
                             f"(expected one of {', '.join(sorted(allowed))})")


def _require(path: str, number: int, line: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Refuse a line that lacks one of `keys`, naming it."""
    for key in keys:
        if key not in line:
            raise ValueError(f"{path}: line {number}: missing \"{key}\"")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A json.loads object hook that refuses a member given twice."""
    seen: dict[str, Any] = {}
    for name, value in pairs:
        if name in seen:
            raise ValueError(f"\"{name}\" appears twice")
        seen[name] = value
    return seen


#: The longest line a record reader accepts (a step line of an 8×8 board is a few hundred bytes).
MAX_LINE_BYTES = 1 << 20


def iter_record(path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The lines of a `g2048 play --record` file, checked and yielded one at a time as ("header" | "step" |
    "end", line): a record of any length is read in the memory of one line, and a bad line is found when it is
    reached. Raises ValueError as read_record() describes, and for a line longer than MAX_LINE_BYTES."""
    version = 0          # the current episode's format version (0: no episode yet)
    episodes = 0
    steps = 0
    last_score = 0
    end: Optional[dict[str, Any]] = None
    last_line = 0
    with open(path, "rb") as file:
        number = 0
        while True:
            raw = file.readline(MAX_LINE_BYTES + 2)
            if not raw:
                break
            number += 1
            cut = not raw.endswith(b"\n")
            if cut and len(raw) > MAX_LINE_BYTES:
                raise ValueError(f"{path}: line {number} is longer than {MAX_LINE_BYTES} bytes")
            raw = raw[:-1] if not cut else raw
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if not raw.strip(b" \t"):
                continue
            last_line = number
            try:
                line = json.loads(raw, object_pairs_hook=_no_duplicates)
            except (ValueError, UnicodeDecodeError) as error:
                if cut:
                    raise ValueError(f"{path}: line {number}: truncated record: the last line is incomplete") from None
                raise ValueError(f"{path}: line {number}: not valid JSON ({error})") from None
            kind = line.get("type") if isinstance(line, dict) else None
            if kind == "header":
                if episodes and version != 1 and end is None:
                    raise ValueError(f"{path}: line {number}: a header where the end line of episode {episodes} was "
                                     "expected")
                if end is not None and end["last_episode"]:
                    raise ValueError(f"{path}: line {number}: a header after the end line of episode {episodes}, "
                                     "which says it is the last")
                _only(path, number, line, _HEADER_MEMBERS)
                if line.get("format") != RECORD_FORMAT:
                    raise ValueError(f"{path}: line {number}: \"format\" must be \"{RECORD_FORMAT}\"")
                found = line.get("version")
                if not isinstance(found, int) or isinstance(found, bool) or not 1 <= found <= RECORD_VERSION:
                    raise ValueError(f"{path}: line {number}: unsupported record version {found!r}")
                _require(path, number, line, ("seed", "config", "board"))
                if not isinstance(line["config"], dict):
                    raise ValueError(f"{path}: line {number}: \"config\" must be an object")
                _only(path, number, line["config"], _rules_options(), "config.")
                version, episodes, steps, last_score, end = found, episodes + 1, 0, 0, None
                yield "header", line
            elif kind == "step":
                if not episodes:
                    raise ValueError(f"{path}: line {number}: a step before any header line")
                if end is not None:
                    raise ValueError(f"{path}: line {number}: a step after the end line of episode {episodes}")
                _only(path, number, line, _STEP_MEMBERS)
                if line.get("step") != steps + 1:
                    raise ValueError(f"{path}: line {number}: step {line.get('step')!r} where step {steps + 1} was "
                                     "expected")
                _require(path, number, line, ("action", "reward", "spawn", "score"))
                if isinstance(line["spawn"], dict):
                    _only(path, number, line["spawn"], _SPAWN_MEMBERS, "spawn.")
                steps, last_score = steps + 1, line["score"]
                yield "step", line
            elif kind == "end":
                if not episodes:
                    raise ValueError(f"{path}: line {number}: an end line before any header line")
                if end is not None:
                    raise ValueError(f"{path}: line {number}: a second end line for episode {episodes}")
                if version == 1:
                    raise ValueError(f"{path}: line {number}: an end line in a version 1 record")
                _only(path, number, line, _END_MEMBERS)
                if line.get("steps") != steps:
                    raise ValueError(f"{path}: line {number}: the end line counts {line.get('steps')!r} steps, "
                                     f"but the episode has {steps}")
                if line.get("score") != last_score:
                    raise ValueError(f"{path}: line {number}: the end line's score {line.get('score')!r} differs "
                                     f"from the score after the last step, {last_score}")
                if line.get("outcome") not in ("game_over", "stopped"):
                    raise ValueError(f"{path}: line {number}: \"outcome\" must be game_over or stopped")
                if not isinstance(line.get("last_episode"), bool):
                    raise ValueError(f"{path}: line {number}: \"last_episode\" must be true or false")
                end = line
                yield "end", line
            else:
                raise ValueError(f"{path}: line {number}: \"type\" must be \"header\", \"step\" or \"end\"")
    if not episodes:
        raise ValueError(f"{path}: the record is empty: no header line")
    if version != 1:
        if end is None:
            where = f"step {steps}" if steps else "its header"
            raise ValueError(f"{path}: line {last_line}: truncated record: episode {episodes} has no end line "
                             f"(the file ends after {where})")
        if not end["last_episode"]:
            raise ValueError(f"{path}: line {last_line}: truncated record: the end line of episode {episodes} "
                             "announces another episode, but the file ends there")


def read_record(path: str) -> list[dict[str, Any]]:
    """The episodes of a `g2048 play --record` file: a list of {"header": dict, "steps": [dict, ...], "end": dict}.

    The file is JSON Lines (CRLF accepted): a header line ({"type": "header", "format": "gym2048-episode",
    "version": 2, "rules_version", "seed", "config": <make options>, "target_tile", "player", "board":
    <exponents>}), one line per step ({"type": "step", "step": n, "action": "left", "reward", "spawn":
    {"cell", "value"} or null, "score"}) and an end line ({"type": "end", "steps", "score", "outcome":
    "game_over" or "stopped", "last_episode": bool}); a restart starts another header. Version 1 records
    (no end line) still load, with "end": None. Raises ValueError naming the line for a malformed or
    truncated file, or a member this version does not know. (iter_record() reads a record without holding it.)
    """
    episodes: list[dict[str, Any]] = []
    for kind, line in iter_record(path):
        if kind == "header":
            episodes.append({"header": line, "steps": [], "end": None})
        elif kind == "step":
            episodes[-1]["steps"].append(line)
        else:
            episodes[-1]["end"] = line
    return episodes


def replay_record(path: str, binary: Optional[str] = None) -> list[dict[str, Any]]:
    """Replay a `g2048 play --record` file through `g2048 serve` and check that it reproduces exactly.

    For each episode: `make` with the header's config, `reset` with its seed (the observation must be the
    recorded start board), then `step` every recorded action; each reward, spawn and score must match.
    The end line's outcome must agree: "game_over" when no move is left, "stopped" otherwise.
    Returns one summary per episode: {"seed", "steps", "score", "max_tile", "player", "version1"} ("version1":
    the record has no end lines, so a cut at a line boundary could not be detected). Raises RecordMismatch at
    the first difference and ValueError for a malformed or truncated record, each as soon as its line is read:
    the record is read a line at a time, never whole.
    """
    summaries: list[dict[str, Any]] = []
    episode = 0
    header: dict[str, Any] = {}
    result: dict[str, Any] = {}
    steps = 0
    ended = False

    def summarize(end: Optional[dict[str, Any]]) -> None:
        board = result["observation"]
        summaries.append({
            "seed": header["seed"],
            "steps": steps,
            "score": result["info"]["score"] if steps else 0,
            "max_tile": max((1 << v) if v else 0 for row in board for v in row),
            "player": header.get("player"),
            "version1": end is None,
        })

    with G2048(binary) as env:
        for kind, line in iter_record(path):
            if kind == "header":
                if episode and header.get("version") == 1:
                    summarize(None)  # a version 1 episode has no end line: the next header closes it
                episode, header, steps, ended = episode + 1, line, 0, False
                spec = env.make(**header["config"])
                if header.get("rules_version") != spec["rules_version"]:
                    raise RecordMismatch(episode, 0, f"recorded with rules version {header.get('rules_version')}, "
                                                     f"the server plays rules version {spec['rules_version']}")
                result = env.reset(seed=header["seed"])
                if result["observation"] != header["board"]:
                    raise RecordMismatch(episode, 0, f"recorded start board {header['board']}, "
                                                     f"seed {header['seed']} gives {result['observation']}")
            elif kind == "step":
                number = line["step"]
                if ended:
                    raise RecordMismatch(episode, number, f"the episode ended after step {number - 1}, "
                                                          f"but the record goes on to step {number}")
                result = env.step(line["action"])
                info = result["info"]
                for name, replayed in (("reward", result["reward"]), ("spawn", info["spawn"]),
                                       ("score", info["score"])):
                    if replayed != line[name]:
                        raise RecordMismatch(episode, number, f"{line['action']}: recorded {name} {line[name]!r}, "
                                                              f"replay gives {replayed!r}")
                ended = result["terminated"] or result["truncated"]
                steps = number
            else:
                if (line["outcome"] == "game_over") != ended:
                    raise RecordMismatch(episode, steps,
                                         "the record says the game was stopped, but no legal move is left" if ended
                                         else "the record says the game was over, but the replay can still move")
                summarize(line)
    if header.get("version") == 1:
        summarize(None)
    return summaries

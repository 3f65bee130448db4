"""Recorded episodes: read a `g2048 play --record` file and check it through the server.

    from gym2048 import replay_record
    replay_record("game.jsonl")            # raises RecordMismatch at the first difference
"""

from __future__ import annotations

import json
from typing import Any, Optional

from .client import G2048

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

    def __init__(self, episode: int, step: int, message: str) -> None:
        where = "start" if step == 0 else f"step {step}"
        super().__init__(f"episode {episode}, {where}: {message}")
        self.episode = episode
        self.step = step


def _only(path: str, number: int, members: Any, allowed: set[str], prefix: str = "") -> None:
    """Refuse a member not in `allowed`, naming it (a misspelt member must not fall back to a default)."""
    for name in members:
        if name not in allowed:
            raise ValueError(f"{path}: line {number}: unknown member \"{prefix}{name}\" "
                             f"(expected one of {', '.join(sorted(allowed))})")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A json.loads object hook that refuses a member given twice."""
    seen: dict[str, Any] = {}
    for name, value in pairs:
        if name in seen:
            raise ValueError(f"\"{name}\" appears twice")
        seen[name] = value
    return seen


def read_record(path: str) -> list[dict[str, Any]]:
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
    episodes: list[dict[str, Any]] = []
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


def replay_record(path: str, binary: Optional[str] = None) -> list[dict[str, Any]]:
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

"""Recorded episodes of every game: read a `g2048 play --record` file and check it through the server.

What a game's lines hold comes from the engine, never from a table here: `spec` says whether the game keeps
2048's lines (`rules_version`, the start board, spawns) or a declared game's (`record`: the member naming the
action and the game's own header, step and end members), and `record_members` gives the values the game has for
its own members, which the replay compares as `g2048 replay` does, in its words.

    from gym2048 import replay_record
    replay_record("game.jsonl")            # raises RecordMismatch at the first difference
"""

from __future__ import annotations

import functools
import json
from typing import Any, Collection, Iterator, Mapping, NamedTuple, Optional, Union

from .client import ACTION_NAMES, ACTIONS, G2048, G2048Error, G2048ParamsError

RECORD_FORMAT = "gym2048-episode"
RECORD_VERSION = 2


class _Kind(NamedTuple):
    """The values a member allows, as `g2048 replay` reads it: its JSON type ("integer", "number", "string", "bool"
    or "object"; an integer is never a bool or a float), the range of a number, `null` when `nullable`, and for a
    "choice" the only values it takes (`words` say them in a message)."""
    kind: str
    low: Optional[float] = None
    high: Optional[float] = None
    nullable: bool = False
    choices: tuple[Union[str, int], ...] = ()
    words: str = ""


#: The members of fixed type of a line, a `config` or a `spawn`: a kind by name, or a _Kind (None: any value).
_Kinds = Mapping[str, Union[str, _Kind, None]]

_INT64_MAX = (1 << 63) - 1
_INT64 = _Kind("integer", -_INT64_MAX - 1, _INT64_MAX)


class _Lines:
    """One game's lines in a record: the members of each kind of line, what a header must give, the member a step
    and the end line must agree on (2048's score; `None`: the replay compares the end line's members), the
    outcomes an end line may state, and the values of each member whose type is fixed (`kinds`, read by
    `_typed`)."""

    def __init__(self, header: set[str], required: tuple[str, ...], step: set[str], end: set[str], tally: Optional[str],
                 outcomes: tuple[str, ...], min_version: int, kinds: _Kinds,
                 record: Optional[Mapping[str, Any]] = None) -> None:
        self.header, self.required, self.step, self.end = header, required, step, end
        self.tally, self.outcomes, self.min_version, self.kinds = tally, outcomes, min_version, kinds
        #: A declared game's `record` layout (`spec`'s), `None` for 2048's lines. A declared game's `config` must
        #: give every option of the game (but those `options_before` says an older record lacks), each as its
        #: type allows (as `g2048 replay` reads it), rather than the board's size with the rest defaulting.
        self.record = record


#: The JSON types of members, by the name `_Kind.kind` gives them, and how a message words them ("value": a game's
#: own member, any JSON but an object, as `g2048 replay` reads it).
_KINDS = {"integer": ((int,), "an integer"), "number": ((int, float), "a number"), "string": ((str,), "a string"),
          "bool": ((bool,), "true or false"), "object": ((dict,), "an object"),
          "value": ((type(None), bool, int, float, str, list), "a value or a list of values")}


def _typed(path: str, number: int, line: dict[str, Any], kinds: _Kinds, prefix: str = "") -> None:
    """Refuse a member given a value its kind does not allow: another type (a bool is neither an integer nor a
    number), a number out of range, a choice it is not; naming the line and the member (`prefix` its object's,
    "config." or "spawn."). Every game's lines, configs and spawns are checked by this one rule."""
    for name, value in line.items():
        spec = kinds.get(name)
        if spec is None or (value is None and not isinstance(spec, str) and spec.nullable):
            continue
        kind = _Kind(spec) if isinstance(spec, str) else spec
        got = f"got {json.dumps(value)[:40]}"
        if kind.kind == "choice":
            if not any(type(value) is type(choice) and value == choice for choice in kind.choices):
                raise ValueError(f"{path}: line {number}: \"{prefix}{name}\" must be {kind.words}, {got}")
            continue
        types, words = _KINDS[kind.kind]
        if not isinstance(value, types) or (isinstance(value, bool) and kind.kind not in ("bool", "value")) \
                or (kind.kind == "value" and _holds_object(value)):
            raise ValueError(f"{path}: line {number}: \"{prefix}{name}\" must be {words}, {got}")
        if kind.low is not None and kind.high is not None and isinstance(value, (int, float)) \
                and not kind.low <= value <= kind.high:
            raise ValueError(f"{path}: line {number}: \"{prefix}{name}\" must be {words} from {kind.low} to {kind.high}, "
                             f"{got}")


def _holds_object(value: Any) -> bool:
    """Whether a list holds an object at any depth (a game's member may be a list of values, never an object)."""
    return isinstance(value, list) and any(isinstance(item, dict) or _holds_object(item) for item in value)


def _listed(names: Any) -> str:
    """`a, b or c`."""
    words = [str(name) for name in names]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


#: 2048's lines, older than the declared games' and kept as they are: a game whose `spec` gives `rules_version`
#: (its start board is an observation, its steps spawn tiles) is recorded with these.
_RULES_LINES = _Lines(
    {"type", "format", "version", "game", "rules_version", "seed", "config", "target_tile", "player", "board"},
    ("rules_version", "seed", "config", "player", "board"), {"type", "step", "action", "reward", "spawn", "score"},
    {"type", "steps", "score", "outcome", "last_episode"}, "score", ("game_over", "stopped"), 1,
    {"seed": _Kind("integer", 0, (1 << 64) - 1), "rules_version": _Kind("integer", 1, _INT64_MAX),
     "target_tile": _Kind("integer", 2, _INT64_MAX, nullable=True), "player": "string",
     "step": _Kind("integer", 1, _INT64_MAX),
     "action": _Kind("choice", choices=(*ACTIONS, 0, 1, 2, 3), words=f"{ACTION_NAMES} or 0..3"),
     "reward": _INT64, "spawn": _Kind("object", nullable=True), "score": _INT64,
     "steps": _Kind("integer", 0, _INT64_MAX), "outcome": "string", "last_episode": "bool"})

#: How a declared game's episode ends: terminated by its rules, cut by a step limit, or stopped.
_DECLARED_OUTCOMES = ("finished", "truncated", "stopped")
#: The record version a declared game's records start at (2048's with end lines).
_DECLARED_VERSION = 2


def _declared_lines(record: Mapping[str, Any]) -> _Lines:
    """A declared game's lines from its `spec`'s `record` layout: every record's members (the options, the seed,
    the player; each step's action and reward; the end's outcome) and the game's own, each any value."""
    action, header, step, end = record["action"], record["header"], record["step"], record["end"]
    own: dict[str, Union[str, _Kind, None]] = {name: "value" for name in (*header, *step, *end) if name != "reward"}
    return _Lines({"type", "format", "version", "game", "seed", "config", "player", *header},
                  ("seed", "config", "player", *header), {"type", "step", action, "reward", *step},
                  {"type", "steps", "outcome", "last_episode", *end}, None, _DECLARED_OUTCOMES, _DECLARED_VERSION,
                  {**own, "seed": _Kind("integer", 0, (1 << 64) - 1), "player": "string", "step": "integer",
                   action: _Kind("integer", 0, _INT64_MAX), "reward": "number", "steps": "integer",
                   "outcome": "string", "last_episode": "bool"}, record)


@functools.lru_cache(maxsize=None)
def _game_lines(game: str) -> _Lines:
    """The lines of `game`'s records, from its `spec` as the engine gives it in this process."""
    record = _record_layout(_spec(game, _RULES_LINES, {}))
    return _RULES_LINES if record is None else _declared_lines(record)


def _options(lines: _Lines, config: Mapping[str, Any]) -> dict[str, Any]:
    """The options a record's `config` makes its game with, as `make` takes them: an option left `null` has its
    default, as g2048 replay reads it, and one a declared game's record lacks, having been written before the
    game had it, the value it was played with (`spec`'s `record`'s `options_before`)."""
    given = {name: value for name, value in config.items() if value is not None}
    return given if lines.record is None else {**lines.record["options_before"], **given}


def _spec(game: str, lines: _Lines, config: Mapping[str, Any]) -> dict[str, Any]:
    """`game`'s `spec` with the options of a record's `config`, from the engine in this process; raises
    G2048ParamsError for options that cannot be together."""
    from .native import CallSession
    session = CallSession({"game": game, **_options(lines, config)})
    try:
        spec: dict[str, Any] = session.call("spec")
        return spec
    finally:
        session.close()


def _record_layout(spec: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """A declared game's `record` layout from its `spec`; `None` for a game with 2048's lines, whose `spec` gives
    the `rules_version` its records are checked against."""
    return None if "rules_version" in spec else spec["record"]


_SPAWN_MEMBERS = ("cell", "value")


class RecordMismatch(Exception):
    """A recorded episode that the server does not reproduce: `episode` (1-based), `step` (0 = the start) and why."""

    def __init__(self, episode: int, step: int, message: str) -> None:
        where = "start" if step == 0 else f"step {step}"
        super().__init__(f"episode {episode}, {where}: {message}")
        self.episode = episode
        self.step = step


#: The members a 2048 record's `config` must give (the others default when left out or `null`).
_BOARD_SIZE = ("rows", "cols")


def _config_options(game: str, lines: _Lines) -> dict[str, Optional[_Kind]]:
    """The names a record's `config` may hold, with the values each allows: the game's options as the engine
    declares them (`g2048_games`: type, range or choices); `null` is an option's default but the board's size's,
    or (a declared game's) `null` only where the option allows it or the record may lack it (`options_before`:
    `null` is then the value it was played with, as `g2048 replay` reads it)."""
    from .native import games_table
    options = next(entry["options"] for entry in games_table() if entry["name"] == game)
    kinds: dict[str, Optional[_Kind]] = {}
    for option in options:
        nullable = option["name"] not in _BOARD_SIZE if lines.record is None \
            else bool(option.get("nullable")) or option["name"] in lines.record["options_before"]
        kind = {"boolean": "bool"}.get(option["type"], option["type"])
        kinds[option["name"]] = (
            _Kind("choice", choices=tuple(option["choices"]), words=_listed(option["choices"]), nullable=nullable)
            if kind == "choice" else _Kind(kind, option.get("min"), option.get("max"), nullable))
    return kinds


def _only(path: str, number: int, members: Any, allowed: Collection[str], prefix: str = "") -> None:
    """Refuse a member not in `allowed`, naming it (a misspelt member must not fall back to a default)."""
    for name in members:
        if name not in allowed:
            raise ValueError(f"{path}: line {number}: unknown member \"{prefix}{name}\" "
                             f"(expected one of {', '.join(sorted(allowed))})")


def _require(path: str, number: int, line: dict[str, Any], keys: tuple[str, ...], prefix: str = "") -> None:
    """Refuse a line (or its object at `prefix`) that lacks one of `keys`, naming it."""
    for key in keys:
        if key not in line:
            raise ValueError(f"{path}: line {number}: missing \"{prefix}{key}\"")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A json.loads object hook that refuses a member given twice."""
    seen: dict[str, Any] = {}
    for name, value in pairs:
        if name in seen:
            raise ValueError(f"\"{name}\" appears twice")
        seen[name] = value
    return seen


#: A card game's deal, recorded: the header member holding each card's content, and the step member saying the
#: content the card showed. The engine gives the deal a seed makes, not why a recorded one cannot be one, so a
#: record whose layout holds both is read with these checks and their words (see `_deal` and `_dealt`).
_DECK, _CONTENT = "deck", "content"


def _deal(path: str, number: int, config: dict[str, Any], deck: Any) -> None:
    """Refuse a header whose deal cannot be one: `deck` must be `config`'s rows of its cols contents, each content
    0..pairs-1 twice (the options' types and ranges are checked before)."""
    rows, cols = config["rows"], config["cols"]
    if not (isinstance(deck, list) and len(deck) == rows and all(isinstance(row, list) and len(row) == cols
                                                                  for row in deck)):
        raise ValueError(f"{path}: line {number}: \"{_DECK}\" must be {rows} rows of {cols} card contents")
    pairs = rows * cols // 2
    contents = [card for row in deck for card in row]
    for card in contents:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < pairs:
            raise ValueError(f"{path}: line {number}: \"{_DECK}\" holds contents from 0 to {pairs - 1}, got "
                             f"{json.dumps(card)[:40]}")
    if sorted(contents) != sorted(list(range(pairs)) * 2):
        raise ValueError(f"{path}: line {number}: \"{_DECK}\" must hold each content 0 to {pairs - 1} twice")


def _dealt(header: dict[str, Any], line: dict[str, Any], action: str, episode: int) -> None:
    """Refuse a step whose card's recorded content is not the one the recorded deal gives it (the deal itself
    was compared with the seed's at the header)."""
    card, deck = line[action], header[_DECK]  # a card of the deal, as the record's reader checks
    cols = len(deck[0])
    dealt = deck[card // cols][card % cols]
    if line[_CONTENT] != dealt:
        raise RecordMismatch(episode, line["step"], f"{action} {card}: recorded {_CONTENT} {_json(line[_CONTENT])}, "
                                                    f"but the recorded deal has {_json(dealt)} there")


#: The longest line a record reader accepts (a step line of an 8×8 board is a few hundred bytes).
MAX_LINE_BYTES = 1 << 20


def iter_record(path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The lines of a `g2048 play --record` file of any game, checked and yielded one at a time as
    ("header" | "step" | "end", line): a record of any length is read in the memory of one line, and a bad line is
    found when it is reached. Raises ValueError as read_record() describes, and for a line longer than
    MAX_LINE_BYTES."""
    for _, kind, line in _numbered_lines(path):
        yield kind, line


def _numbered_lines(path: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """iter_record()'s lines with their line numbers."""
    version = 0          # the current episode's format version (0: no episode yet)
    game: Optional[str] = None
    from .native import games_table
    names = [entry["name"] for entry in games_table()]  # the default first: the game of a header without "game"
    lines = _RULES_LINES
    configs: dict[str, dict[str, Optional[_Kind]]] = {}
    cells = 0
    actions: _Kinds = {}  # a declared game's action, within the actions of the header's options
    episodes = 0
    steps = 0
    last_tally = 0
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
                named = line.get("game", names[0])
                if not isinstance(named, str) or named not in names:
                    raise ValueError(f"{path}: line {number}: \"game\" must be {' or '.join(names)}, got {named!r}")
                if game is not None and named != game:
                    raise ValueError(f"{path}: line {number}: a {named} episode in a record of {game}: a record holds "
                                     "one game")
                if game is None:
                    lines = _game_lines(named)
                game = named
                _only(path, number, line, lines.header)
                _typed(path, number, line, lines.kinds)
                if line.get("format") != RECORD_FORMAT:
                    raise ValueError(f"{path}: line {number}: \"format\" must be \"{RECORD_FORMAT}\"")
                found = line.get("version")
                if not isinstance(found, int) or isinstance(found, bool) or not lines.min_version <= found <= RECORD_VERSION:
                    raise ValueError(f"{path}: line {number}: unsupported record version {found!r}")
                _require(path, number, line, lines.required)
                if not isinstance(line["config"], dict):
                    raise ValueError(f"{path}: line {number}: \"config\" must be an object")
                if game not in configs:
                    configs[game] = _config_options(game, lines)
                _only(path, number, line["config"], configs[game], "config.")
                _typed(path, number, line["config"], configs[game], "config.")
                required = tuple(name for name in configs[game] if name not in lines.record["options_before"]) \
                    if lines.record is not None else _BOARD_SIZE
                _require(path, number, line["config"], required, "config.")
                if lines.record is not None:  # the options make the game, as g2048 replay reads a header
                    try:
                        spec = _spec(game, lines, line["config"])
                    except G2048ParamsError as error:
                        raise ValueError(f"{path}: line {number}: \"config\": {error}") from None
                    count = spec["actions"] if isinstance(spec["actions"], int) else len(spec["actions"])
                    actions = {lines.record["action"]: _Kind("integer", 0, count - 1)}
                if _DECK in lines.required:  # a hidden deal, recorded: it must be one
                    _deal(path, number, line["config"], line[_DECK])
                cells = line["config"]["rows"] * line["config"]["cols"] if lines is _RULES_LINES else 0
                version, episodes, steps, last_tally, end = found, episodes + 1, 0, 0, None
                yield number, "header", line
            elif kind == "step":
                if not episodes:
                    raise ValueError(f"{path}: line {number}: a step before any header line")
                if end is not None:
                    raise ValueError(f"{path}: line {number}: a step after the end line of episode {episodes}")
                _only(path, number, line, lines.step)
                _typed(path, number, line, lines.kinds)
                _typed(path, number, line, actions)
                if line.get("step") != steps + 1:
                    raise ValueError(f"{path}: line {number}: step {line.get('step')!r} where step {steps + 1} was "
                                     "expected")
                _require(path, number, line, tuple(sorted(lines.step - {"type", "step"})))
                if isinstance(line.get("spawn"), dict):
                    _only(path, number, line["spawn"], _SPAWN_MEMBERS, "spawn.")
                    _require(path, number, line["spawn"], _SPAWN_MEMBERS, "spawn.")
                    _typed(path, number, line["spawn"], {"cell": _Kind("integer", 0, cells - 1),
                                                         "value": _Kind("choice", choices=(2, 4), words="2 or 4")},
                           "spawn.")
                steps, last_tally = steps + 1, line[lines.tally] if lines.tally else 0
                yield number, "step", line
            elif kind == "end":
                if not episodes:
                    raise ValueError(f"{path}: line {number}: an end line before any header line")
                if end is not None:
                    raise ValueError(f"{path}: line {number}: a second end line for episode {episodes}")
                if version == 1:
                    raise ValueError(f"{path}: line {number}: an end line in a version 1 record")
                _only(path, number, line, lines.end)
                _typed(path, number, line, lines.kinds)
                if line.get("steps") != steps:
                    raise ValueError(f"{path}: line {number}: the end line counts {line.get('steps')!r} steps, "
                                     f"but the episode has {steps}")
                if lines.record is not None:
                    _require(path, number, line, tuple(lines.record["end"]))
                if lines.tally and line.get(lines.tally) != last_tally:
                    raise ValueError(f"{path}: line {number}: the end line's {lines.tally} {line.get(lines.tally)!r} "
                                     f"differs from the {lines.tally} after the last step, {last_tally}")
                if line.get("outcome") not in lines.outcomes:
                    raise ValueError(f"{path}: line {number}: \"outcome\" must be {', '.join(lines.outcomes[:-1])} "
                                     f"or {lines.outcomes[-1]}")
                if not isinstance(line.get("last_episode"), bool):
                    raise ValueError(f"{path}: line {number}: \"last_episode\" must be true or false")
                end = line
                yield number, "end", line
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
    (no end line) still load, with "end": None. Another game's header names it ("game") and gives every option
    in "config" and, in place of "board", the members its `spec`'s "record" layout names for a header (a card
    game's deal); its steps give the layout's action member (an action of the game), "reward" and its step
    members, and its end line {"steps", its end members, "outcome": "finished", "truncated" or "stopped",
    "last_episode"} (docs/RECORDS.md). Raises ValueError naming the line for a malformed or truncated file, a
    missing, mistyped or out-of-range member (each read as `g2048 replay` reads it; a `config` option within its
    declared range, `null` for its default, and options that make a game), or a member this version does not
    know.
    (iter_record() reads a record without holding it.)
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

    For each episode: `make` with the header's game and config, `reset` with its seed, then `step` every recorded
    action; the reward must match, and so must what the game records beside it. A game with 2048's lines (its
    `spec` gives `rules_version`): the observation must be the recorded start board, each spawn and score must
    match, and the end line's outcome must agree: "game_over" when no move is left, "stopped" otherwise. A
    declared game (`spec`'s `record` names its members): its own header, step and end members must be the ones
    `record_members` gives (the deal a seed makes, the content a card showed, the pairs matched, ...), compared
    and worded as `g2048 replay` compares them, and the outcome ("finished", "truncated" or "stopped") must agree.
    Returns one summary per episode: {"game", "seed", "steps", "player", "version1"} and 2048's "score" and
    "max_tile" or a declared game's end members (a card game's "moves" and "pairs") ("version1": the record has no
    end lines, so a cut at a line boundary could not be detected). Raises RecordMismatch at the first difference
    and ValueError for a malformed or truncated record, each as soon as its line is read: the record is read a
    line at a time, never whole.
    """
    summaries: list[dict[str, Any]] = []
    episode = 0
    header: dict[str, Any] = {}
    spec: dict[str, Any] = {}
    record: Optional[Mapping[str, Any]] = None  # the game's layout when it is a declared game
    result: dict[str, Any] = {}
    members: dict[str, Any] = {}  # a declared game's record_members after the last reset or step
    steps = 0
    ended = False
    from .native import games_table
    default = games_table()[0]["name"]  # the game of a header without "game"
    game = default

    def summarize(end: Optional[dict[str, Any]]) -> None:
        summary = {"game": game, "seed": header["seed"], "steps": steps, "player": header.get("player"),
                   "version1": end is None}
        if record is not None:
            summary.update(zip(record["end"], members["end"]))
        else:
            board = result["observation"]
            summary.update(score=result["info"]["score"] if steps else 0,
                           max_tile=max((1 << v) if v else 0 for row in board for v in row))
        summaries.append(summary)

    with G2048(binary) as env:
        for line_number, kind, line in _numbered_lines(path):
            if kind == "header":
                if episode and header.get("version") == 1:
                    summarize(None)  # a version 1 episode has no end line: the next header closes it
                episode, header, steps, ended = episode + 1, line, 0, False
                game = header.get("game", default)
                try:
                    spec = env.make(**_options(_game_lines(game), header["config"]), game=game)
                except G2048ParamsError as error:  # options that cannot be together (more initial tiles than cells)
                    raise ValueError(f"{path}: line {line_number}: \"config\": {error}") from None
                record = _record_layout(spec)
                result = env.reset(seed=header["seed"])
                if record is not None:
                    members = env.call("record_members")
                    _compare(episode, 0, record["header"], header, members["start"],
                             "the recorded {name} is {recorded}, but seed " + str(header["seed"]) + " gives {replayed}")
                    continue
                if header.get("rules_version") != spec["rules_version"]:
                    raise RecordMismatch(episode, 0, f"recorded with rules version {header.get('rules_version')}, "
                                                     f"the server plays rules version {spec['rules_version']}")
                if result["observation"] != header["board"]:
                    raise RecordMismatch(episode, 0, f"recorded start board {header['board']}, "
                                                     f"seed {header['seed']} gives {result['observation']}")
            elif kind == "step":
                number = line["step"]
                if ended:
                    raise RecordMismatch(episode, number, f"the episode ended after step {number - 1}, "
                                                          f"but the record goes on to step {number}")
                if record is not None:
                    result, members = _replay_step(env, record, header, line, episode)
                else:
                    result = env.step(line["action"])
                    for name, value in (("reward", result["reward"]), ("spawn", result["info"]["spawn"]),
                                        ("score", result["info"]["score"])):
                        if value != line[name]:
                            raise RecordMismatch(episode, number, f"{line['action']}: recorded {name} "
                                                                  f"{line[name]!r}, replay gives {value!r}")
                ended = result["terminated"] or result["truncated"]
                steps = number
            else:
                if record is not None:
                    outcome = ("finished" if result.get("terminated") else "truncated" if result.get("truncated")
                               else "stopped")
                    if line["outcome"] != outcome:
                        raise RecordMismatch(episode, steps, f"the record says the game was {line['outcome']}, but "
                                                             f"the replay is {outcome}")
                    _compare(episode, steps, record["end"], line, members["end"],
                             "the end line's {name} is {recorded}, but the replay has {replayed}")
                elif (line["outcome"] == "game_over") != ended:
                    raise RecordMismatch(episode, steps,
                                         "the record says the game was stopped, but no legal move is left" if ended
                                         else "the record says the game was over, but the replay can still move")
                summarize(line)
    if header.get("version") == 1:
        summarize(None)
    return summaries


def _replay_step(env: G2048, record: Mapping[str, Any], header: dict[str, Any], line: dict[str, Any],
                 episode: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Steps a declared game's recorded action through the server and compares the reward and the game's own step
    members with the ones it gives, as `g2048 replay` does; returns the step's result and the record members."""
    action, number = line[record["action"]], line["step"]
    where = f"{record['action']} {action}: "
    if _DECK in record["header"] and _CONTENT in record["step"]:
        _dealt(header, line, record["action"], episode)
    try:
        result = env.step(action)
    except G2048Error as error:
        raise RecordMismatch(episode, number, f"{where}the server refuses it ({error})") from None
    if result["reward"] != line["reward"]:
        raise RecordMismatch(episode, number, f"{where}recorded reward {line['reward']!r}, "
                                              f"replay gives {result['reward']!r}")
    members: dict[str, Any] = env.call("record_members", {"action": action})
    _compare(episode, number, [name for name in record["step"] if name != "reward"], line, members["step"],
             where + "recorded {name} {recorded}, replay gives {replayed}")
    return result, members


def _compare(episode: int, step: int, names: list[str], line: dict[str, Any], replayed: list[Any],
             words: str) -> None:
    """Refuse the first of a line's own members (`names`, in the layout's order) that is not the value the engine
    gives, as `g2048 replay` compares them: by JSON value and type (1, 1.0 and true differ); `words` says it with
    the member's `name` and both values as JSON."""
    for name, value in zip(names, replayed):
        if not _same(line[name], value):
            raise RecordMismatch(episode, step, words.format(name=name, recorded=_json(line[name]),
                                                             replayed=_json(value)))


def _same(recorded: Any, replayed: Any) -> bool:
    """Whether two JSON values are equal and of the same type at every depth."""
    if isinstance(recorded, list) and isinstance(replayed, list):
        return len(recorded) == len(replayed) and all(map(_same, recorded, replayed))
    return type(recorded) is type(replayed) and recorded == replayed


def _json(value: Any) -> str:
    """A value as a record writes it (`[[1,0],[0,1]]`)."""
    return json.dumps(value, separators=(",", ":"))

"""Recorded episodes of 2048 and Memorize: read a `g2048 play --record` file and check it through the server.

    from gym2048 import replay_record
    replay_record("game.jsonl")            # raises RecordMismatch at the first difference
"""

from __future__ import annotations

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
    and the end line must agree on (2048's score, Memorize's pairs), the outcomes an end line may state, and the
    values of each member whose type is fixed (`kinds`, read by `_typed`)."""

    def __init__(self, header: set[str], required: tuple[str, ...], step: set[str], end: set[str], tally: str,
                 outcomes: tuple[str, ...], min_version: int, kinds: _Kinds, every_option: bool = False) -> None:
        self.header, self.required, self.step, self.end = header, required, step, end
        self.tally, self.outcomes, self.min_version, self.kinds = tally, outcomes, min_version, kinds
        #: Whether `config` must give every option of the game, each as its type allows (the one record format of
        #: the declared games, as `g2048 replay` reads it), rather than the board's size with the rest defaulting.
        self.every_option = every_option


#: The JSON types of members, by the name `_Kind.kind` gives them, and how a message words them.
_KINDS = {"integer": ((int,), "an integer"), "number": ((int, float), "a number"), "string": ((str,), "a string"),
          "bool": ((bool,), "true or false"), "object": ((dict,), "an object")}


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
        if not isinstance(value, types) or (isinstance(value, bool) and kind.kind != "bool"):
            raise ValueError(f"{path}: line {number}: \"{prefix}{name}\" must be {words}, {got}")
        if kind.low is not None and kind.high is not None and isinstance(value, (int, float)) \
                and not kind.low <= value <= kind.high:
            raise ValueError(f"{path}: line {number}: \"{prefix}{name}\" must be {words} from {kind.low} to {kind.high}, "
                             f"{got}")


def _listed(names: Any) -> str:
    """`a, b or c`."""
    words = [str(name) for name in names]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


#: The games a record may hold, by the header's "game" member (2048 when it is left out).
_GAMES = {
    "2048": _Lines({"type", "format", "version", "game", "rules_version", "seed", "config", "target_tile", "player",
                    "board"}, ("rules_version", "seed", "config", "player", "board"),
                   {"type", "step", "action", "reward", "spawn", "score"},
                   {"type", "steps", "score", "outcome", "last_episode"}, "score", ("game_over", "stopped"), 1,
                   {"seed": _Kind("integer", 0, (1 << 64) - 1), "rules_version": _Kind("integer", 1, _INT64_MAX),
                    "target_tile": _Kind("integer", 2, _INT64_MAX, nullable=True), "player": "string",
                    "step": _Kind("integer", 1, _INT64_MAX),
                    "action": _Kind("choice", choices=(*ACTIONS, 0, 1, 2, 3), words=f"{ACTION_NAMES} or 0..3"),
                    "reward": _INT64, "spawn": _Kind("object", nullable=True), "score": _INT64,
                    "steps": _Kind("integer", 0, _INT64_MAX), "outcome": "string", "last_episode": "bool"}),
    "memorize": _Lines({"type", "format", "version", "game", "seed", "config", "player", "deck"},
                       ("seed", "config", "player", "deck"), {"type", "step", "card", "content", "reward", "pairs"},
                       {"type", "steps", "moves", "pairs", "outcome", "last_episode"}, "pairs",
                       ("finished", "truncated", "stopped"), 2,
                       {"seed": "integer", "player": "string", "step": "integer", "card": "integer",
                        "content": "integer", "reward": "number", "pairs": "integer", "steps": "integer",
                        "moves": "integer", "outcome": "string", "last_episode": "bool"}, every_option=True),
}
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


def _config_options(game: str, every_option: bool) -> dict[str, Optional[_Kind]]:
    """The names a record's `config` may hold, with the values each allows: the game's options as the engine
    declares them (`g2048_games`: type, range or choices); `null` is an option's default but the board's size's,
    or (`every_option`) `null` only where the option allows it."""
    from .native import games_table
    options = next(entry["options"] for entry in games_table() if entry["name"] == game)
    kinds: dict[str, Optional[_Kind]] = {}
    for option in options:
        nullable = bool(option.get("nullable")) if every_option else option["name"] not in _BOARD_SIZE
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


def _deal(path: str, number: int, config: dict[str, Any], deck: Any) -> None:
    """Refuse a Memorize header whose deal cannot be one: `config` must give `rows` and `cols`, and `deck` be that
    many rows of that many contents, each content 0..pairs-1 twice (as `g2048 replay` reads a header)."""
    for name in ("rows", "cols"):
        if name not in config:
            raise ValueError(f"{path}: line {number}: missing \"config.{name}\"")
        if not isinstance(config[name], int) or isinstance(config[name], bool) or not 1 <= config[name] <= 64:
            raise ValueError(f"{path}: line {number}: \"config.{name}\" must be an integer from 1 to 64, got "
                             f"{json.dumps(config[name])[:40]}")
    rows, cols = config["rows"], config["cols"]
    if not (isinstance(deck, list) and len(deck) == rows and all(isinstance(row, list) and len(row) == cols
                                                                  for row in deck)):
        raise ValueError(f"{path}: line {number}: \"deck\" must be {rows} rows of {cols} card contents")
    pairs = rows * cols // 2
    contents = [card for row in deck for card in row]
    for card in contents:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < pairs:
            raise ValueError(f"{path}: line {number}: \"deck\" holds contents from 0 to {pairs - 1}, got "
                             f"{json.dumps(card)[:40]}")
    if sorted(contents) != sorted(list(range(pairs)) * 2):
        raise ValueError(f"{path}: line {number}: \"deck\" must hold each content 0 to {pairs - 1} twice")


#: The longest line a record reader accepts (a step line of an 8×8 board is a few hundred bytes).
MAX_LINE_BYTES = 1 << 20


def iter_record(path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The lines of a `g2048 play --record` file (2048's or Memorize's), checked and yielded one at a time as
    ("header" | "step" | "end", line): a record of any length is read in the memory of one line, and a bad line is
    found when it is reached. Raises ValueError as read_record() describes, and for a line longer than
    MAX_LINE_BYTES."""
    for _, kind, line in _numbered_lines(path):
        yield kind, line


def _numbered_lines(path: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """iter_record()'s lines with their line numbers."""
    version = 0          # the current episode's format version (0: no episode yet)
    game: Optional[str] = None
    lines = _GAMES["2048"]
    configs: dict[str, dict[str, Optional[_Kind]]] = {}
    cells = 0
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
                named = line.get("game", "2048")
                if not isinstance(named, str) or named not in _GAMES:
                    raise ValueError(f"{path}: line {number}: \"game\" must be {' or '.join(_GAMES)}, got {named!r}")
                if game is not None and named != game:
                    raise ValueError(f"{path}: line {number}: a {named} episode in a record of {game}: a record holds "
                                     "one game")
                game, lines = named, _GAMES[named]
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
                    configs[game] = _config_options(game, lines.every_option)
                _only(path, number, line["config"], configs[game], "config.")
                _typed(path, number, line["config"], configs[game], "config.")
                required = tuple(configs[game]) if lines.every_option else _BOARD_SIZE
                _require(path, number, line["config"], required, "config.")
                if "deck" in lines.required:  # a hidden deal, recorded: it must be one
                    _deal(path, number, line["config"], line["deck"])
                cells = line["config"]["rows"] * line["config"]["cols"]
                version, episodes, steps, last_tally, end = found, episodes + 1, 0, 0, None
                yield number, "header", line
            elif kind == "step":
                if not episodes:
                    raise ValueError(f"{path}: line {number}: a step before any header line")
                if end is not None:
                    raise ValueError(f"{path}: line {number}: a step after the end line of episode {episodes}")
                _only(path, number, line, lines.step)
                _typed(path, number, line, lines.kinds)
                _typed(path, number, line, {"card": _Kind("integer", 0, cells - 1)})  # a Memorize card of the deal
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
                steps, last_tally = steps + 1, line[lines.tally]
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
                if line.get(lines.tally) != last_tally:
                    raise ValueError(f"{path}: line {number}: the end line's {lines.tally} {line.get(lines.tally)!r} "
                                     f"differs from the {lines.tally} after the last step, {last_tally}")
                if "moves" in lines.end and line.get("moves") != steps // 2:
                    raise ValueError(f"{path}: line {number}: the end line counts {line.get('moves')!r} moves, "
                                     f"but the episode made {steps // 2}")
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
    (no end line) still load, with "end": None. A Memorize record's header says "game": "memorize" and holds
    the deal ("deck": rows of card contents) in place of "board"; its steps are {"card", "content", "reward",
    "pairs"} and its end line {"steps", "moves", "pairs", "outcome": "finished", "truncated" or "stopped",
    "last_episode"} (docs/RECORDS.md). Raises ValueError naming the line for a malformed or
    truncated file, a missing, mistyped or out-of-range member (each read as `g2048 replay` reads it; a `config`
    option within its declared range, `null` for its default), or a member this version does not know.
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

    For each 2048 episode: `make` with the header's config, `reset` with its seed (the observation must be the
    recorded start board), then `step` every recorded action; each reward, spawn and score must match. The end
    line's outcome must agree: "game_over" when no move is left, "stopped" otherwise. For each Memorize episode
    (`g2048 play --game memorize --record`): `make` with `game="memorize"` and the config, `reset` with the seed,
    then `step` every recorded card; the card must show the content the recorded deal gives it, and the reward and
    the pairs matched must match; the outcome ("finished", "truncated" or "stopped") too.
    Returns one summary per episode: {"game", "seed", "steps", "player", "version1"} and 2048's "score" and
    "max_tile" or Memorize's "moves" and "pairs" ("version1": the record has no end lines, so a cut at a line
    boundary could not be detected). Raises RecordMismatch at the first difference and ValueError for a malformed
    or truncated record, each as soon as its line is read: the record is read a line at a time, never whole.
    """
    summaries: list[dict[str, Any]] = []
    episode = 0
    header: dict[str, Any] = {}
    result: dict[str, Any] = {}
    steps = 0
    ended = False

    def summarize(end: Optional[dict[str, Any]]) -> None:
        summary = {"game": header.get("game", "2048"), "seed": header["seed"], "steps": steps,
                   "player": header.get("player"), "version1": end is None}
        if summary["game"] == "memorize":
            summary.update(moves=steps // 2, pairs=result["info"]["pairs_matched"])
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
                # An option left `null` has its default, as g2048 replay reads it.
                config = {name: value for name, value in header["config"].items() if value is not None}
                try:
                    spec = env.make(**config, game=header.get("game", "2048"))
                except G2048ParamsError as error:  # options that cannot be together (more initial tiles than cells)
                    raise ValueError(f"{path}: line {line_number}: \"config\": {error}") from None
                if "rules_version" not in spec:  # a game without 2048's rules version and recorded start board
                    result = env.reset(seed=header["seed"])
                    continue
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
                if header.get("game") == "memorize":
                    result = _replay_card(env, header, line, episode)
                    replayed: tuple[tuple[str, Any], ...] = (("reward", result["reward"]),
                                                             ("pairs", result["info"]["pairs_matched"]))
                    where = f"card {line['card']}"
                else:
                    result = env.step(line["action"])
                    replayed = (("reward", result["reward"]), ("spawn", result["info"]["spawn"]),
                                ("score", result["info"]["score"]))
                    where = str(line["action"])
                for name, value in replayed:
                    if value != line[name]:
                        raise RecordMismatch(episode, number, f"{where}: recorded {name} {line[name]!r}, "
                                                              f"replay gives {value!r}")
                ended = result["terminated"] or result["truncated"]
                steps = number
            else:
                if header.get("game") == "memorize":
                    outcome = ("finished" if result.get("terminated") else "truncated" if result.get("truncated")
                               else "stopped")
                    if line["outcome"] != outcome:
                        raise RecordMismatch(episode, steps, f"the record says the game was {line['outcome']}, but "
                                                             f"the replay is {outcome}")
                elif (line["outcome"] == "game_over") != ended:
                    raise RecordMismatch(episode, steps,
                                         "the record says the game was stopped, but no legal move is left" if ended
                                         else "the record says the game was over, but the replay can still move")
                summarize(line)
    if header.get("version") == 1:
        summarize(None)
    return summaries


def _replay_card(env: G2048, header: dict[str, Any], line: dict[str, Any], episode: int) -> dict[str, Any]:
    """Turns a recorded Memorize card through the server and checks its content against the recorded deal: a card
    the server shows face up must show the deal's content (a matched pair shows no content: its reward says it)."""
    card, number = line["card"], line["step"]  # a card of the deal, as the record's reader checks
    deck = header["deck"]
    cols = len(deck[0])
    dealt = deck[card // cols][card % cols]
    if line["content"] != dealt:
        raise RecordMismatch(episode, number, f"card {card}: recorded content {line['content']!r}, but the recorded "
                                              f"deal has {dealt!r} there")
    try:
        result = env.step(card)
    except G2048Error as error:
        raise RecordMismatch(episode, number, f"card {card}: the server refuses it ({error})") from None
    code = result["observation"][card // cols][card % cols]
    pairs = len(deck) * cols // 2
    if 2 <= code < 2 + pairs and code - 2 != dealt:
        raise RecordMismatch(episode, number, f"card {card}: the recorded deal has content {dealt}, the replay shows "
                                              f"{code - 2}")
    return result

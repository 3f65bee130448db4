"""What a submission carries beside its record, and the limits of each, declared once: the service checks them,
the client and the page read them (`GET /api/protocols` gives them as `limits`)."""

from __future__ import annotations

import hashlib
import math
import unicodedata
from typing import Any, Mapping, Optional

#: The longest record body the service reads (a 4×4 record of 1000 games of a strong player is a few MB).
MAX_BODY_BYTES = 64 << 20
#: The submitter's words: each field's longest length in characters, and whether it must be given.
TEXT_FIELDS = {"team": (64, True), "agent": (64, True), "description": (500, False)}
#: The games per second a submitter may declare (measured on their machine: shown, never verified).
MAX_GAMES_PER_SECOND = 1e12
#: Unicode categories refused in the words: control characters, surrogates, line and paragraph separators (they
#: would break the table's rows, the terminal's lines and the log's).
_REFUSED_CATEGORIES = ("Cc", "Cs", "Zl", "Zp")


class FieldRefused(ValueError):
    """A submitter's field that is missing, too long, or holds a character the ranking refuses."""


def submitter(query: Mapping[str, str]) -> dict[str, Any]:
    """The submitter's fields of a submission's query (`team`, `agent`, `description`, `games_per_second`), each
    checked against its limit; raises FieldRefused naming the first wrong one. Words are stripped of the spaces
    around them; an unknown parameter is refused, so a misspelt one does not go unnoticed."""
    known = set(TEXT_FIELDS) | {"games_per_second"}
    for name in query:
        if name not in known:
            raise FieldRefused(f"unknown parameter {name!r} (expected {', '.join(sorted(known))})")
    fields: dict[str, Any] = {}
    for name, (longest, required) in TEXT_FIELDS.items():
        value = query.get(name, "").strip()
        if required and not value:
            raise FieldRefused(f"{name} is missing")
        if len(value) > longest:
            raise FieldRefused(f"{name} is {len(value)} characters long; at most {longest}")
        for character in value:
            if unicodedata.category(character) in _REFUSED_CATEGORIES:
                raise FieldRefused(f"{name} holds the control character U+{ord(character):04X}")
        fields[name] = value
    fields["games_per_second"] = games_per_second(query.get("games_per_second"))
    return fields


def games_per_second(text: Optional[str]) -> Optional[float]:
    """The declared games per second: None when not given, else a positive finite number up to the limit."""
    if text is None or text.strip() == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise FieldRefused(f"games_per_second must be a number, got {text[:40]!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_GAMES_PER_SECOND):
        raise FieldRefused(f"games_per_second must be a number above 0 and at most {MAX_GAMES_PER_SECOND:g}, "
                           f"got {text[:40]!r}")
    return value


def digest(protocol: str, results: list[dict[str, Any]]) -> str:
    """The identity of a record's play: sha256 over the protocol and each game's seed and actions (the player's
    name and the record's layout do not change it, so renaming a submission does not make it new)."""
    hasher = hashlib.sha256(protocol.encode())
    for game in results:
        hasher.update(f"\n{game['seed']}:{game['actions']}".encode())
    return hasher.hexdigest()


def limits() -> dict[str, Any]:
    """The limits as the API gives them (`GET /api/protocols`), for the page's form and the client."""
    return {"max_body_bytes": MAX_BODY_BYTES, "max_games_per_second": MAX_GAMES_PER_SECOND,
            "fields": {name: {"max_length": longest, "required": required}
                       for name, (longest, required) in TEXT_FIELDS.items()}}

"""The ranking's HTTP client (standard library only): submit a record, read the table."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any, Optional
from urllib.parse import urlencode

from .fields import MAX_BODY_BYTES

#: How long a call waits for the service (a large record's verification takes seconds).
TIMEOUT_SECONDS = 300.0


class RankRefused(Exception):
    """The service refused the request: `reason` is its words, `status` the HTTP status (None: no answer)."""

    def __init__(self, reason: str, status: Optional[int] = None) -> None:
        super().__init__(reason)
        self.reason, self.status = reason, status


def _call(request: urllib.request.Request) -> Any:
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            reason = str(json.loads(text)["error"])
        except (ValueError, KeyError, TypeError):
            reason = text.decode("utf-8", "replace")[:200] or str(error.reason)
        raise RankRefused(reason, error.code) from None
    except (urllib.error.URLError, OSError) as error:
        cause = error.reason if isinstance(error, urllib.error.URLError) else error
        raise RankRefused(f"no answer from {request.full_url}: {cause}") from None


def submit(url: str, team: str, agent: str, path: str, description: str = "",
           games_per_second: Optional[float] = None) -> dict[str, Any]:
    """Send the games record at `path` to the ranking at `url`; its answer `{"id", "rank", "row"}`. Raises
    RankRefused with the service's reason (or why it could not be reached)."""
    size = os.path.getsize(path)
    if size > MAX_BODY_BYTES:
        raise RankRefused(f"{path} is {size} bytes; the ranking takes at most {MAX_BODY_BYTES} bytes")
    with open(path, "rb") as record:
        body = record.read()
    query = {"team": team, "agent": agent, "description": description}
    if games_per_second is not None:
        query["games_per_second"] = repr(float(games_per_second))
    request = urllib.request.Request(f"{url.rstrip('/')}/api/submissions?{urlencode(query)}", data=body,
                                     method="POST", headers={"Content-Type": "application/octet-stream"})
    answer: dict[str, Any] = _call(request)
    return answer


def show(url: str, protocol: Optional[str] = None, query: Optional[str] = None) -> list[dict[str, Any]]:
    """The ranking's rows for `protocol` (the first protocol when None), best first; `query` keeps the rows whose
    team or agent holds it."""
    parameters = {name: value for name, value in (("protocol", protocol), ("q", query)) if value}
    answer = _call(urllib.request.Request(f"{url.rstrip('/')}/api/table?{urlencode(parameters)}"))
    rows: list[dict[str, Any]] = answer["rows"]
    return rows

"""The Gym2048 ranking: submitted games records are replayed by the engine and only verified results are kept,
in a SQLite file, shown live in a web page (docs/RANKING.md).

    import gym2048.rank
    gym2048.rank.serve("ranking.sqlite", port=8048)                       # the service and its page
    gym2048.rank.submit("http://127.0.0.1:8048", "team", "agent", "games.jsonl")   # → {"id", "rank", "row"}
    gym2048.rank.show("http://127.0.0.1:8048", protocol="2048-4x4-v1")             # → the table's rows

The command line is `python -m gym2048.rank serve|submit|show`.
"""

from __future__ import annotations

from .client import RankRefused, show, submit
from .server import serve

__all__ = ["RankRefused", "serve", "show", "submit"]

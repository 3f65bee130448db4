"""The ranking's database: one SQLite file holding every verified submission and its games.

    store = Store("ranking.sqlite")        # checks the file, and repairs what does not add up
    row = store.add(fields, verified, digest, size)
    store.table("2048-4x4-v1")

The file is in WAL mode, so readers (the page, the API) never wait for a writer, and `synchronous=FULL`: a commit
is on disk before the submitter hears 201, even if the machine loses power right after (WAL's NORMAL could lose
the last commits then). A submission and all its games are written in one transaction (BEGIN IMMEDIATE … COMMIT):
a process killed at any point leaves it wholly in or wholly out. On open, `PRAGMA integrity_check` must pass, and
each submission's aggregates are recomputed from its games rows: a submission whose games are not all there is
removed, and aggregates that do not match the games are reset to what the games give; both said on stderr.
"""

from __future__ import annotations

import json
import math
import sqlite3
import statistics
import sys
import threading
import zlib
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping, Optional

#: The layout's version: a file written by another layout is refused rather than misread.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    team TEXT NOT NULL, agent TEXT NOT NULL, description TEXT NOT NULL,
    protocol TEXT NOT NULL, game TEXT NOT NULL, player TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    games INTEGER NOT NULL, steps INTEGER NOT NULL,
    mean REAL NOT NULL, standard_error REAL NOT NULL, ci_low REAL NOT NULL, ci_high REAL NOT NULL,
    median REAL NOT NULL, min REAL NOT NULL, max REAL NOT NULL,
    reach TEXT NOT NULL,
    optimal_fraction REAL, suboptimal_moves REAL, games_per_second REAL,
    created TEXT NOT NULL, bytes INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS submissions_by_protocol ON submissions (protocol, mean DESC);
CREATE INDEX IF NOT EXISTS submissions_by_agent ON submissions (team, agent, id);
CREATE TABLE IF NOT EXISTS games (
    submission_id INTEGER NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    idx INTEGER NOT NULL, seed TEXT NOT NULL, score REAL NOT NULL, steps INTEGER NOT NULL, outcome TEXT NOT NULL,
    actions BLOB NOT NULL,
    PRIMARY KEY (submission_id, idx));
"""

#: The columns of a submission's row, as the API gives them (`reach` decoded from its JSON).
_ROW = ("id", "team", "agent", "description", "protocol", "game", "player", "games", "steps", "mean",
        "standard_error", "ci_low", "ci_high", "median", "min", "max", "reach", "optimal_fraction",
        "suboptimal_moves", "games_per_second", "created", "bytes")
#: The columns `add` writes, in the order of its values.
_WRITTEN = (*_ROW[1:7], "digest", *_ROW[7:])
#: The aggregates recomputed from the games rows on open, and how far apart a stored one may be (float sums).
_RECOMPUTED = ("steps", "mean", "standard_error", "median", "min", "max")
_TOLERANCE = 1e-9


class StoreError(Exception):
    """A database file the ranking cannot use: it fails `integrity_check`, or another layout wrote it."""


class Duplicate(Exception):
    """A submission whose play (its digest) is already stored: `existing` is the stored one's id."""

    def __init__(self, existing: int) -> None:
        super().__init__(f"this record is already ranked (submission {existing})")
        self.existing = existing


def summary(scores: list[float], steps: list[int]) -> dict[str, float]:
    """The aggregates of a submission's games as the engine's evaluation reports them: the mean, the standard error
    of the mean (sample standard deviation / √n), the median (the middle two's mean for an even count), the least
    and the most, and the steps in all."""
    count = len(scores)
    mean = math.fsum(scores) / count if count else 0.0
    error = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / (count - 1) / count) if count > 1 else 0.0
    return {"steps": float(sum(steps)), "mean": mean, "standard_error": error,
            "median": float(statistics.median(scores)) if count else 0.0,
            "min": float(min(scores, default=0)), "max": float(max(scores, default=0))}


class Store:
    """The ranking's SQLite file: `add` a verified submission, read the tables. One connection, shared by the
    service's threads under a lock (each statement is short; a submission's verification happens before)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        # isolation_level=None: transactions are the explicit BEGIN IMMEDIATE … COMMIT below, nothing implicit.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        try:
            self._open()
        except sqlite3.DatabaseError as error:  # not a database, or one SQLite cannot read
            self._db.close()
            raise StoreError(f"{path}: {error}") from None
        except BaseException:
            self._db.close()
            raise

    def _open(self) -> None:
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        problems = [row[0] for row in self._db.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise StoreError(f"{self.path} fails SQLite's integrity check: {'; '.join(problems[:5])}")
        self._db.executescript(_SCHEMA)
        self._check_version()
        self._repair()

    def _check_version(self) -> None:
        versions = [row[0] for row in self._db.execute("SELECT version FROM schema_version")]
        if not versions:
            self._db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        elif versions != [SCHEMA_VERSION]:
            raise StoreError(f"{self.path} has schema version {versions}; this service reads version {SCHEMA_VERSION}")

    def _repair(self) -> None:
        """Recompute every submission's aggregates from its games rows: remove a submission whose games are not
        all there, reset aggregates that differ from what the games give, each said on stderr."""
        with self._transaction():
            for row in self._db.execute("SELECT * FROM submissions").fetchall():
                games = self._db.execute("SELECT score, steps FROM games WHERE submission_id = ? ORDER BY idx",
                                         (row["id"],)).fetchall()
                if len(games) != row["games"]:
                    _log(f"submission {row['id']} ({row['team']}/{row['agent']}) holds {len(games)} games of "
                         f"{row['games']}: removed")
                    self._db.execute("DELETE FROM submissions WHERE id = ?", (row["id"],))
                    continue
                fresh = summary([game["score"] for game in games], [game["steps"] for game in games])
                wrong = [name for name in _RECOMPUTED if not _close(row[name], fresh[name])]
                low, high = row["ci_low"], row["ci_high"]
                if wrong or not (isinstance(low, float) and isinstance(high, float) and low <= fresh["mean"] <= high):
                    half = 1.96 * fresh["standard_error"]
                    _log(f"submission {row['id']} ({row['team']}/{row['agent']}): "
                         f"{', '.join(wrong) or 'the confidence interval'} did not match its games: reset")
                    self._db.execute("UPDATE submissions SET steps = ?, mean = ?, standard_error = ?, median = ?, "
                                     "min = ?, max = ?, ci_low = ?, ci_high = ? WHERE id = ?",
                                     (int(fresh["steps"]), fresh["mean"], fresh["standard_error"], fresh["median"],
                                      fresh["min"], fresh["max"], fresh["mean"] - half, fresh["mean"] + half,
                                      row["id"]))
            orphans = self._db.execute("DELETE FROM games WHERE submission_id NOT IN (SELECT id FROM submissions)")
            if orphans.rowcount:
                _log(f"{orphans.rowcount} games rows of no submission: removed")

    def _transaction(self) -> Any:
        return _Transaction(self._db, self._lock)

    def add(self, fields: Mapping[str, Any], verified: Mapping[str, Any], digest: str, size: int,
            optimal: Optional[Mapping[str, float]] = None) -> int:
        """Store a verified submission and all its games in one transaction; its id. `fields` are the submitter's
        (`team`, `agent`, `description`, `games_per_second`), `verified` is `verify_games`' answer, `optimal` the
        fraction of optimal play and the share of suboptimal moves where the protocol is solved. Raises Duplicate
        when the same play is stored (the digest is UNIQUE: two racing submitters cannot both get in)."""
        result = verified["summary"]
        low, high = result["ci95"]
        values = (fields["team"], fields["agent"], fields["description"], verified["protocol"], verified["game"],
                  str(verified.get("player") or ""), digest, verified["games"], verified["steps"], result["mean"],
                  result["standard_error"], low, high, result["median"], result["min"], result["max"],
                  json.dumps(result.get("reach") or {}), None if optimal is None else optimal["fraction"],
                  None if optimal is None else optimal["suboptimal_moves"], fields.get("games_per_second"),
                  datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), size)
        with self._transaction():
            existing = self._db.execute("SELECT id FROM submissions WHERE digest = ?", (digest,)).fetchone()
            if existing is not None:
                raise Duplicate(existing[0])
            cursor = self._db.execute(f"INSERT INTO submissions ({', '.join(_WRITTEN)}) "
                                      f"VALUES ({', '.join('?' * len(_WRITTEN))})", values)
            identifier = int(cursor.lastrowid or 0)
            self._db.executemany(
                "INSERT INTO games (submission_id, idx, seed, score, steps, outcome, actions) VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((identifier, game["index"], str(game["seed"]), game["score"], game["steps"], game["outcome"],
                  zlib.compress(game["actions"].encode())) for game in verified["results"]))
        return identifier

    def counts(self) -> dict[str, int]:
        """The number of submissions of each protocol that has any."""
        with self._lock:
            return {row[0]: row[1] for row in self._db.execute(
                "SELECT protocol, COUNT(*) FROM submissions GROUP BY protocol")}

    def find(self, digest: str) -> Optional[int]:
        """The id of the submission with this play, None when there is none."""
        with self._lock:
            row = self._db.execute("SELECT id FROM submissions WHERE digest = ?", (digest,)).fetchone()
        return None if row is None else int(row[0])

    def table(self, protocol: str, query: str = "") -> list[dict[str, Any]]:
        """The protocol's ranking: one row per submission, best mean first, each with its `rank` (ties share one);
        `query` keeps the rows whose team or agent holds it (any case)."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM submissions WHERE protocol = ? ORDER BY mean DESC, id",
                                    (protocol,)).fetchall()
        ranked = list(_ranked([_row(row) for row in rows]))
        needle = query.casefold()
        return [row for row in ranked if needle in row["team"].casefold() or needle in row["agent"].casefold()]

    def history(self, team: str, agent: str) -> list[dict[str, Any]]:
        """Every submission of one team's agent, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM submissions WHERE team = ? AND agent = ? ORDER BY id",
                                    (team, agent)).fetchall()
        return [_row(row) for row in rows]

    def submission(self, identifier: int) -> Optional[dict[str, Any]]:
        """One submission's row with its `rank` in its protocol and `scores` (game by game, in order); None when
        there is none."""
        with self._lock:
            row = self._db.execute("SELECT * FROM submissions WHERE id = ?", (identifier,)).fetchone()
            if row is None:
                return None
            better = self._db.execute("SELECT COUNT(*) FROM submissions WHERE protocol = ? AND mean > ?",
                                      (row["protocol"], row["mean"])).fetchone()[0]
            scores = [game[0] for game in self._db.execute(
                "SELECT score FROM games WHERE submission_id = ? ORDER BY idx", (identifier,))]
        return {**_row(row), "rank": better + 1, "scores": scores}

    def game(self, identifier: int, index: int) -> Optional[dict[str, Any]]:
        """Game `index` of a submission: its seed, score, steps, outcome and actions; None when there is none."""
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE submission_id = ? AND idx = ?",
                                   (identifier, index)).fetchone()
        if row is None:
            return None
        return {"index": row["idx"], "seed": int(row["seed"]), "score": row["score"], "steps": row["steps"],
                "outcome": row["outcome"], "actions": zlib.decompress(row["actions"]).decode()}

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT under the store's lock, ROLLBACK on an exception: all in or all out."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock) -> None:
        self._db, self._lock = db, lock

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._lock.release()
            raise

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        try:
            self._db.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._lock.release()


def _row(row: sqlite3.Row) -> dict[str, Any]:
    out = {name: row[name] for name in _ROW}
    out["reach"] = json.loads(out["reach"])
    return out


def _ranked(rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The rows (best mean first) with their rank: 1 + the number of rows with a higher mean."""
    rank, previous = 0, None
    for position, row in enumerate(rows):
        if row["mean"] != previous:
            rank, previous = position + 1, row["mean"]
        yield {**row, "rank": rank}


def _close(stored: Any, fresh: float) -> bool:
    return isinstance(stored, (int, float)) and abs(stored - fresh) <= _TOLERANCE * max(1.0, abs(fresh))


def _log(message: str) -> None:
    print(f"gym2048.rank: {message}", file=sys.stderr, flush=True)

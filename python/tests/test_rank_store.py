"""The ranking's SQLite store on its own: a submission is written whole, a file that another layout wrote or that
fails SQLite's integrity check is refused, and what does not add up is repaired on open and said on stderr."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from gym2048.rank.store import Duplicate, Store, StoreError, summary

FIELDS = {"team": "team", "agent": "agent", "description": "", "games_per_second": None}


def verified(scores: list[int], protocol: str = "test-v1") -> dict[str, Any]:
    """A verify_games answer for games with these scores (3 steps each)."""
    stats = summary([float(score) for score in scores], [3] * len(scores))
    half = 1.96 * stats["standard_error"]
    return {"game": "2048", "protocol": protocol, "config": {}, "player": "p", "games": len(scores), "steps": 3 * len(scores),
            "summary": {"mean": stats["mean"], "standard_error": stats["standard_error"],
                        "ci95": [stats["mean"] - half, stats["mean"] + half], "median": stats["median"],
                        "min": stats["min"], "max": stats["max"], "reach": {"16": 0.5}},
            "results": [{"index": i, "seed": (1 << 64) - 1 - i, "score": score, "steps": 3, "outcome": "terminated",
                         "actions": "012"} for i, score in enumerate(scores)]}


def test_the_summary_is_the_engines() -> None:
    import numpy as np
    from gym2048.players import _report
    for scores in ([1, 2, 3, 10], [7], [5, 5, 9], list(range(0, 4000, 37))):
        ours = summary([float(score) for score in scores], [1] * len(scores))
        tiles = np.full(len(scores), 2, np.int64)
        engine = _report("p", 3, 3, np.asarray(scores, np.int64), tiles, np.ones(len(scores), np.int64), 1.0)
        assert ours["mean"] == pytest.approx(engine["mean_score"])
        assert (ours["median"], ours["max"]) == (engine["median_score"], engine["max_score"])
        assert ours["standard_error"] == pytest.approx(engine["standard_error"], rel=1e-12)


def test_a_submission_is_stored_whole_ranked_and_read_back(tmp_path: Any) -> None:
    store = Store(str(tmp_path / "r.sqlite"))
    low = store.add(FIELDS, verified([4, 8, 12]), "a", 100)
    high = store.add({**FIELDS, "agent": "Other"}, verified([40, 80]), "b", 100)
    tie = store.add({**FIELDS, "agent": "third"}, verified([60, 60]), "c", 100)
    with pytest.raises(Duplicate, match=f"submission {low}"):
        store.add(FIELDS, verified([4, 8, 12]), "a", 100)
    assert [(row["id"], row["rank"]) for row in store.table("test-v1")] == [(high, 1), (tie, 1), (low, 3)]
    assert [row["id"] for row in store.table("test-v1", "oth")] == [high]
    assert store.table("other-v1") == []
    row = store.submission(low)
    assert row is not None and row["scores"] == [4, 8, 12] and row["reach"] == {"16": 0.5} and row["rank"] == 3
    assert store.game(low, 2) == {"index": 2, "seed": (1 << 64) - 3, "score": 12, "steps": 3, "outcome": "terminated",
                                  "actions": "012"}
    assert store.game(low, 3) is None and store.submission(99) is None
    assert [row["id"] for row in store.history("team", "agent")] == [low]
    store.close()
    with sqlite3.connect(str(tmp_path / "r.sqlite")) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_aggregates_that_do_not_match_the_games_are_reset_and_incomplete_submissions_removed(
        tmp_path: Any, capfd: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "r.sqlite")
    store = Store(path)
    kept = store.add(FIELDS, verified([4, 8, 12]), "a", 100)
    edited = store.add(FIELDS, verified([16, 32]), "b", 100)
    cut = store.add(FIELDS, verified([2, 2, 2]), "c", 100)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE submissions SET mean = 1e9, max = 5 WHERE id = ?", (edited,))
        db.execute("DELETE FROM games WHERE submission_id = ? AND idx = 1", (cut,))
    capfd.readouterr()
    store = Store(path)
    errors = capfd.readouterr().err
    assert f"submission {cut} (team/agent) holds 2 games of 3: removed" in errors
    assert f"submission {edited} (team/agent): mean, max did not match its games: reset" in errors
    assert f"submission {kept}" not in errors
    assert [(row["id"], row["mean"], row["max"]) for row in store.table("test-v1")] == [(edited, 24, 32), (kept, 8, 12)]
    store.close()
    Store(path).close()
    assert capfd.readouterr().err == ""


def test_a_file_of_another_layout_or_failing_integrity_is_refused(tmp_path: Any) -> None:
    path = str(tmp_path / "r.sqlite")
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="schema version"):
        Store(path)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)
    with pytest.raises(StoreError, match="garbage.sqlite: file is not a database"):
        Store(str(garbage))

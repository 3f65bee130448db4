"""The ranking end to end, as a user runs it (Examples/python/ranking_scenario.py, with 6 seconds of training a
board): on 3x3 the optimal, trained, greedy and random players ranked in that order, optimal play at 100 % of
optimal; on 4x4 trained, greedy, random; every forged record refused with its reason and the tables unchanged."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any

_path = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "python", "ranking_scenario.py")
_spec = importlib.util.spec_from_file_location("ranking_scenario", _path)
assert _spec is not None and _spec.loader is not None
ranking_scenario: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ranking_scenario)


def test_the_players_rank_as_they_play_and_forgeries_are_refused(tmp_path: Any) -> None:
    tables, refusals, failures = ranking_scenario.run(6, str(tmp_path), log=sys.stderr)
    assert failures == []
    assert [row["agent"] for row in tables["2048-3x3-v1"]] == ["optimal", "trained", "greedy", "random"]
    assert tables["2048-3x3-v1"][0]["optimal_fraction"] == 1.0
    assert all(0 < row["optimal_fraction"] < 1 for row in tables["2048-3x3-v1"][1:])
    assert [row["agent"] for row in tables["2048-4x4-v1"]] == ["trained", "greedy", "random"]
    assert sorted(refusals) == ["a duplicate", "action changed", "another seed", "other rules", "score edited"]
    assert "the record says score" in refusals["score edited"]
    assert "the seed is not the protocol's" in refusals["another seed"]
    assert "the config is not 2048-3x3-v1's: spawn_four_probability" in refusals["other rules"]
    assert "already ranked" in refusals["a duplicate"]
    assert "game 0 (seed" in refusals["action changed"]

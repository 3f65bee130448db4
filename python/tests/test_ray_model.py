"""Benchmarks/ray_model.py, the model of training on N machines: where a curve reaches a score (interpolated, and
past its end extrapolated), a game's worth past the workers measured, and the table the docs quote."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from script_module import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "Benchmarks" / "ray_model.py"


def load() -> Any:
    return load_script(SCRIPT, "ray_model")


def test_a_score_is_reached_between_rows_and_past_the_end_on_the_fitted_line() -> None:
    model = load()
    curve = [(100.0, 10.0), (200.0, 20.0), (400.0, 30.0), (800.0, 40.0)]
    assert model.moves_to_reach(curve, 15.0) == (150.0, False)
    assert model.moves_to_reach(curve, 5.0) == (50.0, False)  # from the origin to the first row
    # Past the end: 10 points for each doubling of the moves in the last half, so 50 at 1 600 moves.
    moves, extrapolated = model.moves_to_reach(curve, 50.0)
    assert extrapolated and math.isclose(moves, 1600.0, rel_tol=1e-9)
    assert model.moves_to_reach([(1.0, 5.0), (2.0, 5.0)], 9.0) == (math.inf, True)  # a flat end never gets there


def test_worth_is_measured_interpolated_or_continued_as_a_power() -> None:
    model = load()
    worth = {1: 1.0, 2: 0.5, 4: 0.25}
    assert model.worth_of(worth, 2) == 0.5
    assert math.isclose(model.worth_of(worth, 3), 1 / 3)  # 1/W through 2 and 4
    assert math.isclose(model.worth_of(worth, 16), 1 / 16)
    assert model.worth_of({1: 1.0, 2: 1.2}, 8) == 1.0  # never above one


def test_the_table_has_a_row_a_machine_count_and_marks_extrapolations(tmp_path: Path) -> None:
    curve = tmp_path / "curve.csv"
    curve.write_text("games,moves,elapsed_seconds,moves_per_second,mean_score\n"
                     + "".join(f"{g},{g * 1000},{g},1,{10_000 * math.log2(g)}\n" for g in (1000, 2000, 4000, 8000)))
    done = subprocess.run([sys.executable, str(SCRIPT), "--curve", str(curve), "--moves-per-second", "1e6",
                           "--sync-mb", "10", "--sync-seconds", "0.1", "--worth", "1:1,2:0.8,4:0.6",
                           "--machines", "1,2,8", "--targets", "100000,200000"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split("|")[1].strip() for row in rows] == ["1", "2", "8"]
    assert all(row.count("(extrapolated)") == 1 for row in rows)  # 100 000 is on the curve, 200 000 past it
    # One machine: no link, the measured sync; two workers' worth.
    assert "| 1 | 2 | 0.10 s |" in rows[0] and "| 0.80 |" in rows[0]


@pytest.mark.parametrize("missing", ["--curve", "--worth"])
def test_a_missing_input_is_a_usage_error(missing: str, tmp_path: Path) -> None:
    arguments = {"--curve": "x.csv", "--moves-per-second": "1", "--sync-mb": "1", "--sync-seconds": "1", "--worth": "1:1"}
    del arguments[missing]
    done = subprocess.run([sys.executable, str(SCRIPT), *[part for pair in arguments.items() for part in pair]],
                          capture_output=True, text=True)
    assert done.returncode == 2 and f"{missing}" in done.stderr

"""The learner from Python: `gym2048.Learner` trains the network `g2048 train` trains, game for game, and saves the
file the command writes; its weights go out and come back in; its settings are refused in the command's words."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gym2048 import G2048Error, G2048ParamsError, Learner, TrainedPlayer, find_binary
from gym2048.native import library


def body(path: Path) -> bytes:
    """A weights file without its header (which holds the training time) and its checksum (over the header too)."""
    data = path.read_bytes()
    header = 16 + int.from_bytes(data[12:16], "little")
    return data[header:-8]


def train_cli(flags: list[str], out: Path) -> None:
    subprocess.run([find_binary(), "train", "--threads", "1", *flags, "--out", str(out), "--force"], check=True,
                   capture_output=True)


# 4x4: TD on the packed board, two lanes; 3x3: OTD, switching to TC half way, on one lane, without a table.
# 3x3 with restarts: half the games that reached a 64 play again from where they first held their largest tile.
SIZES = [({"rows": 4}, ["--rows", "4"], 150), ({"rows": 3, "table_share": 0}, ["--rows", "3", "--table-share", "0"], 400),
         ({"rows": 3, "table_share": 0, "restart": 0.5, "restart_from": 64},
          ["--rows", "3", "--table-share", "0", "--restart", "0.5", "--restart-from", "64"], 400),
         ({"rows": 3, "table_share": 0, "stages": "64,128", "stage_boards": "downgraded"},
          ["--rows", "3", "--table-share", "0", "--stages", "64,128", "--stage-boards", "downgraded"], 400)]


@pytest.mark.parametrize("options,flags,games", SIZES, ids=["4x4", "3x3", "3x3-restarts", "3x3-downgraded-stages"])
def test_a_learner_saves_the_weights_g2048_train_writes(options: dict[str, Any], flags: list[str], games: int,
                                                        tmp_path: Path) -> None:
    learner = Learner(seed=1, **options)
    report = learner.train(games=games, threads=1)
    assert report["games"] == report["total_games"] == games and report["moves"] > games and report["mean_score"] > 0
    ours, theirs = tmp_path / "ours.bin", tmp_path / "theirs.bin"
    learner.save(ours)
    train_cli([*flags, "--games", str(games), "--seed", "1"], theirs)
    assert body(ours) == body(theirs)
    assert learner.info["games"] == games
    evaluated = subprocess.run([find_binary(), "eval", "--weights", str(ours), "--games", "3", "--json"], check=True,
                               capture_output=True, text=True)
    assert '"games"' in evaluated.stdout
    assert TrainedPlayer(str(ours)).info["games"] == games


def test_each_call_is_a_run_resuming_the_last(tmp_path: Path) -> None:
    # TD: TC's accumulators, which a file does not store, are kept by a learner between calls and restart on --resume.
    learner = Learner(rows=3, table_share=0, learning="td", seed=2)
    learner.train(games=100)
    learner.train(games=150)
    ours, theirs = tmp_path / "ours.bin", tmp_path / "theirs.bin"
    learner.save(ours)
    train_cli(["--rows", "3", "--table-share", "0", "--learning", "td", "--games", "100", "--seed", "2"], theirs)
    train_cli(["--resume", str(theirs), "--table-share", "0", "--games", "250"], theirs)
    assert body(ours) == body(theirs)


def test_numpy_option_values_are_the_plain_numbers(tmp_path: Path) -> None:
    # numpy scalars pass the JSON check as numbers; the options' text must then spell them as numbers too.
    plain, numpy_ = tmp_path / "plain.bin", tmp_path / "numpy.bin"
    learner = Learner(rows=3, table_share=0, learning="td", seed=2)
    learner.train(games=30)
    learner.save(plain)
    learner = Learner(rows=np.int64(3), table_share=np.float64(0), learning="td", seed=np.uint64(2))
    learner.train(games=30)
    learner.save(numpy_)
    assert body(plain) == body(numpy_)
    with pytest.raises(G2048ParamsError, match=r"alpha must be a finite number, got nan"):
        Learner(rows=3, alpha=np.float32("nan"))


def test_weights_round_trip(tmp_path: Path) -> None:
    learner = Learner(rows=3, table_share=0, patterns="0,1,2,3;3,4,5,6")
    learner.train(games=20)
    weights = learner.weights()
    assert weights.dtype == np.float32 and weights.shape == (learner.info["weights"],)
    changed = np.arange(len(weights), dtype=np.float32) / 3
    learner.set_weights(changed)
    assert np.array_equal(learner.weights(), changed)
    other = Learner(rows=3, table_share=0, patterns="0,1,2,3;3,4,5,6")
    other.set_weights(learner.weights())
    other.save(tmp_path / "b.bin")
    assert np.array_equal(Learner(resume=str(tmp_path / "b.bin")).weights(), changed)
    with pytest.raises(ValueError, match=f"count must be the network's {len(weights)} weights, got 3"):
        learner.set_weights(np.zeros(3, np.float32))


@pytest.mark.parametrize("options,words", [
    ({"alpha": 2}, "alpha must be a number from 1e-09 to 1.0, got 2"),
    ({"rows": 3, "network": "8x6"}, "--network 8x6 is a network for 4x4 boards"),
    ({"epochs": 3}, "unknown option 'epochs'"),
    ({"restart": 1}, "restart must be a number from 0.0 to 0.99, got 1"),
    ({"restart_from": 96}, "--restart-from must be a power of two, got 96"),
    ({"table_learning": "sweep", "rows": 4}, "--table-learning sweep: this 4x4 run learns no afterstate table"),
    ({"learning": 1j}, "learning must be a number, text, true or false, null, a list or an object, got complex 1j"),
])
def test_a_bad_option_is_a_value_error_naming_it(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(".", r"\.")):
        Learner(**options)


def test_a_closed_learner_is_refused() -> None:
    learner = Learner(rows=3, table_share=0, patterns="0,1,2,3")
    learner.close()
    with pytest.raises(G2048Error, match="the learner is closed"):
        learner.train(games=1)
    with pytest.raises(ValueError, match="games or seconds must be set"):
        Learner(rows=3, table_share=0, patterns="0,1,2,3").train()


def test_a_delta_carries_one_learners_training_to_another() -> None:
    settings: dict[str, Any] = {"rows": 3, "table_share": 0, "patterns": "0,1,2,3;3,4,5,6"}
    worker, server = Learner(seed=4, **settings), Learner(**settings)
    with pytest.raises(ValueError, match="no weights exported yet"):
        worker.delta()
    worker.set_weights(server.weights())
    worker.train(games=30)
    indices, changes = worker.delta()
    assert 0 < len(indices) < worker.info["weights"] and indices.dtype == np.int64 and changes.dtype == np.float32
    server.apply_delta(indices, changes)
    # Then plus the change is now, to a rounding of the larger of the two.
    np.testing.assert_allclose(server.weights(), worker.weights(), rtol=1e-6, atol=1e-4)
    assert len(worker.delta()[0]) == 0  # exported: nothing moved since
    # Applied from elsewhere, a change is not sent back.
    worker.apply_delta(indices[:1], np.ones(1, np.float32))
    assert len(worker.delta()[0]) == 0
    with pytest.raises(ValueError, match="indices\\[0\\] must be 0 to"):
        server.apply_delta([-1], [1.0])


def test_assign_sets_weights_exactly_and_is_not_sent_back() -> None:
    """A driver's combined weights, where a worker's moved: the worker holds them bit for bit afterwards, as a
    whole `set_weights` would leave it, and its next delta is only its own training."""
    settings: dict[str, Any] = {"rows": 3, "table_share": 0, "patterns": "0,1,2,3;3,4,5,6"}
    worker, other = Learner(seed=4, **settings), Learner(seed=5, **settings)
    start = worker.weights()
    other.set_weights(start)
    worker.train(games=30)
    other.train(games=30)
    indices, _ = worker.delta()
    combined = other.weights()
    worker.assign(indices, combined[indices])
    # Where the worker did not move a weight it holds the start, which the other may have moved: set those too.
    moved_by_other = np.flatnonzero(combined != start)
    worker.assign(moved_by_other, combined[moved_by_other])
    assert np.array_equal(worker.weights().view(np.uint32), combined.view(np.uint32))
    assert len(worker.delta()[0]) == 0
    worker.train(games=5)
    moved, changes = worker.delta()
    np.testing.assert_allclose(worker.weights()[moved] - changes, combined[moved], rtol=1e-6)  # measured from them
    with pytest.raises(ValueError, match="indices and values must be one-dimensional and as long"):
        worker.assign([0, 1], [1.0])
    with pytest.raises(ValueError, match="indices\\[1\\] must be 0 to"):
        worker.assign([0, worker.info["weights"]], [1.0, 2.0])


def test_a_games_report_makes_another_learners_games_its_own(tmp_path: Path) -> None:
    """A driver that combines deltas records its workers' games: the file it saves says how many games made it and
    the tile their last games suggest downgrading from, as the worker's own file does."""
    worker, driver = Learner(rows=4, seed=1), Learner(rows=4, seed=2)
    worker.train(games=1200)
    report = worker.games()
    assert report["games"] == 1200 and report["moves"] == worker.info["moves"] and report["seconds"] > 0
    assert len(report["last"]) == 1000 and all(len(game) == 3 for game in report["last"])
    assert sum(game[2] for game in report["last"]) < report["moves"]
    assert worker.games() == {"games": 0, "moves": 0, "seconds": 0.0, "last": []}  # reported: the next one is empty
    driver.record(report, seconds=2.5)
    assert (driver.info["games"], driver.info["moves"]) == (1200, report["moves"])
    driver.set_weights(worker.weights())
    for learner, name in ((worker, "worker.bin"), (driver, "driver.bin")):
        learner.save(tmp_path / name)
    said = [subprocess.run([find_binary(), "eval", "--weights", str(tmp_path / name), "--games", "1"], check=True,
                           capture_output=True, text=True).stderr.splitlines()[0] for name in ("worker.bin", "driver.bin")]
    assert "trained 1200 games; downgrading from" in said[0] and said[1] == said[0].replace("worker.bin", "driver.bin")


@pytest.mark.parametrize("report,words", [
    ({"games": 1, "moves": 5, "seconds": 0, "last": [[4, 3, 5]]}, '"last[0][1]" must be a power of two, got 3'),
    ({"games": 1, "moves": 5, "seconds": 0, "last": [[4, 4, 5], [4, 4, 5]]}, "last holds 2 games, more than its 1"),
    ({"games": 2, "moves": 5, "seconds": 0, "last": [[4, 4, 5], [4, 4, 5]]}, "last has more moves than the 5 of all"),
    ({"games": -1, "moves": 5, "seconds": 0, "last": []}, '"games" must be an integer from 0 to 9223372036854775807, got -1'),
    ({"games": 1, "moves": 5, "seconds": -1, "last": []}, '"seconds" must be a finite number of at least 0.0, got -1'),
    ({"games": 1, "moves": 5, "seconds": float("inf"), "last": []}, "seconds must be a finite number, got inf"),
    ({"games": 1, "moves": 5, "seconds": 0, "last": [], "score": 3}, 'unknown member "score" (expected one of games,'),
    ({"games": 1, "moves": 5, "seconds": 0, "last": [[4, 4]]}, '"last[0]" must be [score, max_tile, moves], got [4,4]'),
    ({"games": 1, "moves": 5, "seconds": 0, "last": [[4, 4.5, 1]]}, '"last[0][1]" must be an integer, got 4.5'),
    ({"games": 1, "moves": 5, "seconds": 0}, 'missing "last"'),
])
def test_a_bad_games_report_is_refused_and_counts_nothing(report: dict[str, Any], words: str) -> None:
    driver = Learner(rows=3, table_share=0)
    with pytest.raises(ValueError, match=re.escape(words)):
        driver.record(report)
    assert driver.info["games"] == 0 and driver.info["moves"] == 0


def test_the_engine_refuses_a_report_whose_seconds_overflow() -> None:
    """JSON has no infinity, but a literal too large for a double reads as one: the engine refuses it by name."""
    driver = Learner(rows=3, table_share=0)
    text = b'{"games": 1, "moves": 5, "seconds": 1e999, "last": []}'
    assert library().g2048_learner_record(driver._live(), text, 0.0) != 0
    assert '"seconds" must be a finite number of at least 0.0, got inf' in library().g2048_last_error().decode()
    assert driver.info["games"] == 0


def test_seconds_limit_a_call_and_a_forked_child_is_refused() -> None:
    learner = Learner(rows=3, table_share=0, patterns="0,1,2,3")
    report = learner.train(seconds=0.2)
    assert report["games"] > 0 and 0.1 < report["seconds"] < 5
    pid = os.fork()
    if pid == 0:
        try:
            learner.train(games=1)
            os._exit(1)
        except G2048Error as error:
            os._exit(0 if "after a fork, make a new one in the child" in str(error) else 2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


FUZZ_SEED = int(os.environ.get("G2048_FUZZ_SEED", "7"))


def test_random_settings_are_taken_or_refused_by_name() -> None:
    """Seeded draws over the declared settings (`g2048_learner_settings`): values in range, at the edges, just out of
    range, of the wrong type, and junk text. Out of range or mistyped, a learner is refused with a ValueError or
    TypeError naming a drawn setting; otherwise it is made and trains, or is refused naming one (settings that
    disagree, such as a network for another board). Boards stay at 2x2 to 3x3 so that every learner is small."""
    import json
    import random
    declared = [s for s in json.loads(library().g2048_learner_settings()) if s["name"] not in ("rows", "cols", "resume")]
    rng = random.Random(FUZZ_SEED)
    made = refused = 0
    for draw in range(80):
        options: dict[str, Any] = {"rows": rng.choice([2, 3]), "cols": rng.choice([2, 3]), "table_share": 0}
        wrong: set[str] = set()
        for setting in rng.sample(declared, rng.randint(1, 4)):
            name, kind = setting["name"], setting["kind"]
            pick = rng.randrange(6)
            if kind in ("integer", "number") and pick < 3:
                low, high = setting["min"], setting["max"]
                value: Any = [low, high, rng.uniform(low, high) if kind == "number" else rng.randint(low, high)][pick]
            elif kind in ("integer", "number") and pick == 3:
                value = rng.choice([setting["min"] - 1, setting["max"] + 1, 2**70, -(2**70)])
                wrong.add(name)
            elif kind == "choice" and pick < 3:
                value = rng.choice(setting["choices"])
            elif pick == 4:
                value = rng.choice([[1], {"a": 1}, 1j])
                wrong.add(name)
            else:
                value = rng.choice(["", "x", "4x6", "0,1,2", "16,8", "\u00e9\u0000", "9" * 40, "-1"])
                if kind in ("integer", "number"):
                    wrong.add(name)
            options[name] = value
        named = [name for name in options] + ["--" + name.replace("_", "-") for name in options]
        try:
            learner = Learner(**options)
        except (ValueError, TypeError) as error:
            refused += 1
            assert any(word in str(error) for word in named), f"draw {draw}: {options!r}: {error}"
            continue
        assert not wrong, f"draw {draw}: {options!r} was taken though {sorted(wrong)} are out of range or mistyped"
        made += 1
        # A table share spends part of the games' budget on the afterstate table (all of it at 1).
        report = learner.train(games=2)
        expected = {2} if options["table_share"] == 0 else {0, 1, 2}
        assert report["games"] in expected and report["total_games"] == report["games"], f"draw {draw}: {options!r}: {report}"
        learner.close()
    assert made >= 5 and refused >= 20, (made, refused)

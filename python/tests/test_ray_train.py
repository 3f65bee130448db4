"""Training on Ray: workers' deltas combined (averaged or summed) into the combined weights every period, saved as
a weights file `g2048 eval` reads; a killed worker replaced, a checkpoint resumed, Ctrl-C saving, bad arguments
refused."""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from gym2048 import Learner, find_binary
from gym2048.native import library
import gym2048.ray_train as ray_train_module
from gym2048.ray_train import CSV_HEADER, INSTALL, NOT_FLAGS, Interrupted, _parser, main, ray_train

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=f"ray is not installed ({INSTALL})")
# Four 4-tuples: a small network (a quarter of a million weights), so that a period takes milliseconds.
PATTERNS = "0,1,2,3;4,5,6,7;0,4,8,12;1,5,9,13"
SMALL: dict[str, Any] = {"rows": 4, "patterns": PATTERNS}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray for the in-process runs (each would start its own otherwise: seconds each)."""
    import ray
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    yield
    ray.shutdown()


def weights(path: Path) -> Any:
    return Learner(resume=str(path)).weights()


def training_workers(session: int) -> list[int]:
    """The processes of Ray actors (`ray::_Worker…`) in the session `session` leads."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            # The session id is the sixth field of /proc/PID/stat, after the command in parentheses.
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == session and (entry / "cmdline").read_bytes().startswith(b"ray::_Worker"):
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def evaluate(path: Path) -> None:
    done = subprocess.run([find_binary(), "eval", "--weights", str(path), "--games", "3", "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and '"games"' in done.stdout, done.stderr


@needs_ray
@pytest.mark.parametrize("rule", ["mean", "sum"])
def test_the_workers_deltas_are_combined_every_period(rule: str, local_ray: None, tmp_path: Path) -> None:
    out, csv = tmp_path / "w.bin", tmp_path / "curve.csv"
    report = ray_train(workers=2, games=400, period_games=100, out=out, metrics=str(csv), seed=7, combine=rule,
                       **SMALL)
    assert report["games"] == 400 and report["periods"] == 2 and report["worker_restarts"] == 0
    # The weights file counts the workers' games and moves as its own.
    assert Learner(resume=str(out)).info["games"] == 400
    rows = csv.read_text().splitlines()
    assert rows[0] == CSV_HEADER and [row.split(",")[0] for row in rows[1:]] == ["200", "400"]
    evaluate(out)
    # The same two periods by hand: each worker (seed 7 + its index) trains from the combined weights, and the
    # combined weights move by the sum of their changes, or each weight by the mean change of the workers that
    # moved it.
    learners = [Learner(**SMALL, seed=7 + index, table_share=0) for index in range(2)]
    combined = learners[0].weights()
    shared = 0
    for _ in range(2):
        start = combined.copy()
        changes = []
        for learner in learners:
            learner.set_weights(start)
            learner.train(games=100)
            changes.append(learner.weights() - start)
        if rule == "sum":
            combined += changes[0]
            combined += changes[1]
        else:
            moved = (changes[0] != 0).astype(np.float64) + (changes[1] != 0)
            total = changes[0].astype(np.float64) + changes[1]
            combined += np.divide(total, moved, out=np.zeros_like(total), where=moved > 0).astype(np.float32)
            shared += int(np.count_nonzero(moved == 2))
    if rule == "sum":
        assert np.array_equal(weights(out), combined)
    else:
        assert np.allclose(weights(out), combined, rtol=1e-6, atol=1e-3)
        # Both rules are exercised: weights that both workers moved (averaged) and weights one moved.
        assert shared > 0


@needs_ray
def test_the_update_sent_whole_or_sparse_leaves_the_same_weights(local_ray: None, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Past a share of the network moved the workers get the combined weights whole, not their moved part: the
    same weights either way, bit for bit."""
    import gym2048.ray_train as module
    files = {}
    for share in (1.0, 0.0):  # never whole, always whole
        monkeypatch.setattr(module, "WHOLE_SHARE", share)
        files[share] = tmp_path / f"w{share}.bin"
        ray_train(workers=2, games=600, period_games=100, out=files[share], seed=5, **SMALL)
    assert np.array_equal(weights(files[1.0]).view(np.uint32), weights(files[0.0]).view(np.uint32))


@needs_ray
def test_a_killed_worker_is_replaced_and_the_run_plays_all_its_games(local_ray: None, tmp_path: Path) -> None:
    ray: Any = importlib.import_module("ray")  # partly typed: available_resources is not

    def kill_one(period: dict[str, Any]) -> None:
        if period["period"] == 1:
            ray.kill(period["actors"][0])

    out = tmp_path / "w.bin"
    report = ray_train(workers=2, games=600, period_games=100, out=out, on_period=kill_one, seed=1, **SMALL)
    assert report["games"] == 600 and report["worker_restarts"] == 1 and report["periods"] >= 3
    evaluate(out)
    # The run's actors are gone with it: a Ray that outlives the run has its CPUs back.
    deadline = time.monotonic() + 5
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == 2


@needs_ray
def test_resume_continues_from_the_checkpoint(local_ray: None, tmp_path: Path) -> None:
    first, second = tmp_path / "first.bin", tmp_path / "second.bin"
    ray_train(workers=1, games=100, period_games=100, out=first, seed=3, **SMALL)
    ray_train(workers=1, games=150, period_games=150, out=second, resume=first, seed=4)
    # One worker, one period: the learner of the file, trained on (its change added to the file's weights).
    learner = Learner(resume=str(first), seed=4, table_share=0)
    start = learner.weights()
    learner.train(games=150)
    assert np.array_equal(weights(second), start + (learner.weights() - start))
    evaluate(second)


@needs_ray
def test_more_workers_than_the_cluster_has_cpus_is_an_error_not_a_wait(local_ray: None, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="3 workers need 3 CPUs \\(one each\\), the Ray cluster has 2"):
        ray_train(workers=3, games=10, out=tmp_path / "w.bin", **SMALL)
    assert not (tmp_path / "w.bin").exists()


@needs_ray
def test_ctrl_c_saves_the_weights_and_exits_130(tmp_path: Path) -> None:
    out = tmp_path / "w.bin"
    command = [sys.executable, "-m", "gym2048.ray_train", "--workers", "1", "--seconds", "120", "--period-games", "50",
               "--out", str(out), "--rows", "4", "--patterns", PATTERNS]
    # A session of its own: Ctrl-C in a terminal signals the whole group, Ray's processes too.
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 40
        while not out.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert out.exists(), "no period was saved"
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert "interrupted: the weights are saved" in stderr
    evaluate(out)


@needs_ray
def test_ctrl_c_in_a_long_period_saves_at_once(tmp_path: Path) -> None:
    # The driver waits on a period of a million games: the Ctrl-C is taken within a quarter of a second of Ray's
    # wait, the weights it holds (the starting ones) saved, the actors stopped.
    out = tmp_path / "w.bin"
    command = [sys.executable, "-m", "gym2048.ray_train", "--workers", "1", "--games", "1000000", "--period-games",
               "1000000", "--out", str(out), "--rows", "4", "--patterns", PATTERNS]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # Until the worker trains (its process is in the driver's session): Ray's start-up takes seconds, more on
        # a busy machine.
        deadline = time.monotonic() + 60
        while not training_workers(process.pid) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert process.poll() is None, process.communicate()[1]
        assert training_workers(process.pid), "no worker started in 60 s"
        time.sleep(1)
        os.killpg(process.pid, signal.SIGINT)
        start = time.monotonic()
        _, stderr = process.communicate(timeout=30)
        waited = time.monotonic() - start
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert "interrupted: the weights are saved" in stderr and waited < 15, (waited, stderr)
    evaluate(out)


def interrupting(make: Any, times: int = 1) -> Any:
    """`make`, called after `times` Ctrl-Cs (SIGINT to this process) arrive: as in a terminal while it runs."""
    def call(*arguments: Any, **keywords: Any) -> Any:
        for _ in range(times):
            signal.raise_signal(signal.SIGINT)
        return make(*arguments, **keywords)
    return call


@pytest.fixture
def ray_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Ray's start and stop replaced by records of their calls ("init", "shutdown"), Ray not running: for runs that
    a Ctrl-C ends before any actor starts."""
    import ray
    calls: list[str] = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda *arguments, **keywords: calls.append("init"))
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    return calls


@needs_ray
def test_ctrl_c_while_the_learner_is_made_saves_its_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            ray_calls: list[str]) -> None:
    # The learner's tables take seconds for a large network: the Ctrl-C is taken once it exists, before Ray starts.
    monkeypatch.setattr(ray_train_module, "Learner", interrupting(Learner))
    out, handler = tmp_path / "w.bin", signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt) as caught:
        ray_train(workers=1, games=10, out=out, **SMALL)
    assert isinstance(caught.value, Interrupted) and caught.value.out == str(out) and ray_calls == ["shutdown"]
    assert np.array_equal(weights(out), Learner(**SMALL, seed=1).weights())
    assert signal.getsignal(signal.SIGINT) is handler


@needs_ray
def test_ctrl_c_while_ray_starts_saves_the_weights_and_stops_ray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                ray_calls: list[str]) -> None:
    # Ray's start-up takes seconds: a Ctrl-C in it used to leave no file behind a message that said it was saved.
    import ray
    monkeypatch.setattr(ray, "init", interrupting(ray.init))
    out = tmp_path / "w.bin"
    with pytest.raises(KeyboardInterrupt) as caught:
        ray_train(workers=1, games=10, out=out, **SMALL)
    assert isinstance(caught.value, Interrupted) and ray_calls == ["init", "shutdown"]
    assert np.array_equal(weights(out), Learner(**SMALL, seed=1).weights())


@needs_ray
def test_a_second_ctrl_c_before_the_run_began_says_nothing_is_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(ray_train_module, "Learner", interrupting(Learner, times=2))
    out, handler = tmp_path / "w.bin", signal.getsignal(signal.SIGINT)
    assert main(["--workers", "1", "--games", "10", "--out", str(out), "--rows", "4", "--patterns", PATTERNS]) == 130
    assert "interrupted before the run began: nothing is saved" in capsys.readouterr().err
    assert not out.exists()
    assert signal.getsignal(signal.SIGINT) is handler


@pytest.mark.parametrize("arguments,message", [
    (["--workers", "0", "--games", "10"], "workers must be at least 1, got 0"),
    (["--workers", "2"], "set games or seconds"),
    (["--games", "10", "--period-games", "0"], "period_games must be at least 1"),
    (["--games", "ten"], "invalid int value"),
    (["--games", "10", "--combine", "median"], "invalid choice: 'median'"),
    # The learner's settings are the engine's to check, in its words.
    (["--games", "10", "--lanes", "65"], "lanes must be an integer from 1 to 64, got 65"),
    (["--games", "10", "--learning", "sarsa"], 'learning must be one of "td", "tc", "otd+tc", got "sarsa"'),
    (["--games", "10", "--lanes", "two"], "argument --lanes: invalid int value: 'two'"),
])
def test_bad_arguments_are_usage_errors(arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    try:
        status = main(arguments)
    except SystemExit as exit:  # argparse's errors
        status = int(exit.code or 0)
    assert status == 64
    assert message in capsys.readouterr().err


def test_the_flags_of_the_learner_are_its_own_settings_but_those_a_run_on_ray_sets_itself() -> None:
    settings = json.loads(library().g2048_learner_settings())
    flags = {action.dest for action in _parser()._actions}
    learner = {setting["name"] for setting in settings}
    # `--resume` is the run's own flag (its help says so), the table's settings none.
    assert learner - flags == {"table_share", "table_learning"} and set(NOT_FLAGS) <= learner
    assert {"rows", "tc_alpha", "seed", "lanes", "resume"} <= flags
    usage = _parser().format_help()
    assert "--tc-alpha TC_ALPHA" in usage and "--learning td|tc|otd+tc" in usage


def test_bad_arguments_are_refused_before_ray_starts() -> None:
    with pytest.raises(ValueError, match="workers must be at least 1"):
        ray_train(workers=0, games=10)
    with pytest.raises(ValueError, match="set games or seconds"):
        ray_train(workers=2)
    with pytest.raises(ValueError, match="combine must be one of mean, sum, got 'median'"):
        ray_train(workers=2, games=10, combine="median")


def test_without_ray_the_error_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'gym2048\[ray\]'"):
        ray_train(workers=1, games=10)

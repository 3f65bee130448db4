"""Benchmarks/peers.sh, the script that rebuilds and reruns the README's peer comparisons.

The normal suite checks what needs no network and no peer: its arguments, where it says to get TDL2048, and its
environment phase end to end on a stand-in PufferLib tree (a binding of our own with the binding's calls, written
here, that draws through the raylib stub the script writes). The full run, PufferLib's real source and TDL2048,
is opt-in: G2048_PEERS_TESTS=1 with G2048_TDL2048 (a built tdl2048 or a checkout) and, where GitHub cannot be
reached, G2048_PUFFERLIB (a PufferLib source with pufferlib/ocean/g2048).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "Benchmarks" / "peers.sh"

# A binding with PufferLib's vec_* calls that does nothing, and calls raylib where PufferLib's environment draws,
# so that the build needs the script's raylib stub.
STAND_IN = r"""
#include <Python.h>
#include "raylib.h"

static PyObject* vec_init(PyObject* self, PyObject* args) { return PyLong_FromLong(1); }
static PyObject* nothing(PyObject* self, PyObject* args) { Py_RETURN_NONE; }
static PyObject* vec_log(PyObject* self, PyObject* args) { return PyDict_New(); }
static PyObject* vec_render(PyObject* self, PyObject* args) {
    if (!IsWindowReady()) InitWindow(400, 400, "2048");
    BeginDrawing();
    ClearBackground((Color){6, 24, 24, 255});
    DrawText(TextFormat("%d", 2048), 10, 10, 24, BLACK);
    EndDrawing();
    Py_RETURN_NONE;
}
static PyMethodDef methods[] = {
    {"vec_init", vec_init, METH_VARARGS, ""}, {"vec_reset", nothing, METH_VARARGS, ""},
    {"vec_step", nothing, METH_VARARGS, ""}, {"vec_log", vec_log, METH_VARARGS, ""},
    {"vec_render", vec_render, METH_VARARGS, ""}, {"vec_close", nothing, METH_VARARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "binding", NULL, -1, methods};
PyMODINIT_FUNC PyInit_binding(void) { return PyModule_Create(&module); }
"""


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def test_help_names_every_option_and_where_the_peers_come_from() -> None:
    out = run("--help")
    assert out.returncode == 0, out.stderr
    for option in ("--tdl2048", "--pufferlib", "--envs", "--rounds", "--seconds", "--learner-seconds",
                   "--train-games", "--eval-games", "--only"):
        assert option in out.stdout
    assert "https://github.com/moporgic/TDL2048" in out.stdout
    assert "https://github.com/PufferAI/PufferLib" in out.stdout


@pytest.mark.parametrize("args, code", [((), 64), (("--tdl2048", "/nonexistent/tdl2048"), 66)])
def test_a_missing_tdl2048_says_where_to_get_it(args: tuple[str, ...], code: int, tmp_path: Path) -> None:
    # Before anything is fetched or built: the cache folder stays empty.
    out = run(*args, env={"G2048_PEERS_CACHE": str(tmp_path / "cache")})
    assert out.returncode == code
    assert "git clone https://github.com/moporgic/TDL2048 && make -C TDL2048" in out.stderr
    assert "--only env" in out.stderr
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("args", [("--envs", "0"), ("--only", "both"), ("--seconds", "1.5"), ("--frobnicate",)])
def test_bad_arguments_exit_64(args: tuple[str, ...]) -> None:
    out = run("--only", "env", *args)
    assert out.returncode == 64
    assert out.stderr.startswith("error: ")


def test_a_source_without_the_2048_environment_is_refused(tmp_path: Path) -> None:
    out = run("--only", "env", "--pufferlib", str(tmp_path), env={"G2048_PEERS_CACHE": str(tmp_path / "cache")})
    assert out.returncode == 66
    assert "no pufferlib/ocean/g2048/binding.c" in out.stderr


def test_the_environment_phase_builds_a_binding_with_the_raylib_stub_and_prints_the_ratio(tmp_path: Path) -> None:
    source = tmp_path / "PufferLib" / "pufferlib" / "ocean" / "g2048"
    source.mkdir(parents=True)
    (source / "binding.c").write_text(STAND_IN)
    cache = tmp_path / "cache"
    out = run("--only", "env", "--pufferlib", str(tmp_path / "PufferLib"), "--rounds", "1", "--seconds", "1",
              "--envs", "64", env={"G2048_PEERS_CACHE": str(cache)}, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    built = list((cache / "pufferlib-g2048").glob("binding*.so"))
    assert len(built) == 1
    # The stub's drawing calls compiled to nothing: rendering through the binding runs without raylib.
    subprocess.run([sys.executable, "-c", "import binding; binding.vec_render(1)"], cwd=built[0].parent, check=True)
    summary = out.stdout.split("== summary ==")[1]
    assert re.search(r"^commit   \S+, \d{4}-\d\d-\d\d \d\d:\d\d UTC$", summary, re.M)
    assert re.search(r"^CPU      .+, \d+ CPUs", summary, re.M)
    assert "command  Benchmarks/peers.sh --only env --pufferlib" in summary
    assert re.search(r"^    gym2048 +[\d.]+ M per wall second +[\d.]+ M per CPU second$", summary, re.M)
    assert re.search(r"^    PufferLib +[\d.]+ M per wall second", summary, re.M)
    assert re.search(r"^    ratio +[\d.]+x per CPU second", summary, re.M)


@pytest.mark.skipif(os.environ.get("G2048_PEERS_TESTS") != "1",
                    reason="the full build and both peers: set G2048_PEERS_TESTS=1 and G2048_TDL2048")
def test_the_full_run_builds_pufferlib_and_compares_both_peers() -> None:
    args = ["--tdl2048", os.environ["G2048_TDL2048"], "--rounds", "1", "--seconds", "1", "--learner-seconds", "5",
            "--train-games", "1", "--eval-games", "1"]
    if os.environ.get("G2048_PUFFERLIB"):
        args += ["--pufferlib", os.environ["G2048_PUFFERLIB"]]
    out = run(*args, timeout=1800)
    assert out.returncode == 0, out.stdout + out.stderr
    summary = out.stdout.split("== summary ==")[1]
    assert re.search(r"^    ratio +[\d.]+x per CPU second \(gym2048 make_vec / PufferLib\)$", summary, re.M)
    # Training then evaluation, each with both learners' rates and their ratio.
    assert len(re.findall(r"^    ratio +[\d.]+× \(g2048 / TDL2048\)$", summary, re.M)) == 2
    assert len(re.findall(r"^    TDL2048 .*[\d.]+ M moves/s", summary, re.M)) == 2

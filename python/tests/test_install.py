"""The install a new user does: `pip install ./python` into a fresh virtualenv, then gym2048 from any folder.

Slow-ish (a virtualenv, pip's isolated build, an incremental `swift build`), so both checks share one install.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)

# What a user runs from their own project folder after installing: no environment variable, no repository path.
USER_SCRIPT = textwrap.dedent("""
    import os, subprocess, sys
    import gymnasium, gym2048
    from gym2048.client import find_binary

    binary = find_binary()
    assert binary.startswith(sys.prefix), f"the server should come from the installed package, not {binary}"
    obs, info = gymnasium.make("Gym2048-v0").reset(seed=1)
    assert obs.shape == (4, 4) and int((obs > 0).sum()) == 2
    envs = gymnasium.make_vec("Gym2048-v0", num_envs=8, vectorization_mode="vector_entry_point", backend="server")
    obs, infos = envs.reset(seed=3)
    assert obs.shape == (8, 4, 4)
    servers = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "g2048 serve"],
                             capture_output=True, text=True).stdout.split()
    assert len(servers) == 1, f"make_vec started {len(servers)} servers"
    envs.close()
    print("installed gym2048 works")
""")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, dict[str, str]]:
    """A fresh virtualenv with `pip install ./python` (not editable) done in it: its python."""
    root = tmp_path_factory.mktemp("install")
    venv.create(root / "venv", with_pip=True)
    python = str(root / "venv" / "bin" / "python")
    environment = {k: v for k, v in os.environ.items() if k != "G2048_BIN"}
    completed = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", PACKAGE],
                               capture_output=True, text=True, env=environment)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return python, root, environment


def test_pip_install_gives_a_working_package_from_any_folder(installed: tuple[str, Path, dict[str, str]]) -> None:
    python, root, environment = installed
    elsewhere = root / "my-project"
    elsewhere.mkdir()
    completed = subprocess.run([python, "-c", USER_SCRIPT], cwd=elsewhere, capture_output=True, text=True,
                               env=environment, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "installed gym2048 works" in completed.stdout


def test_install_without_swift_fails_with_one_clear_sentence(installed: tuple[str, Path, dict[str, str]]) -> None:
    python, root, environment = installed
    # The same install with no Swift toolchain on PATH (and no G2048_BIN): pip must stop with the sentence.
    no_swift = dict(environment, PATH="/usr/bin:/bin")
    completed = subprocess.run([python, "-m", "pip", "install", "--disable-pip-version-check", "--force-reinstall",
                                "--no-deps", PACKAGE], capture_output=True, text=True, env=no_swift)
    assert completed.returncode != 0
    assert "gym2048 needs the Swift 6.3 toolchain to build its server" in completed.stdout + completed.stderr

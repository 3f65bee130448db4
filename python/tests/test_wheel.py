"""The wheel a user without Swift installs: `pip wheel ./python`, then `pip install <wheel>` into a fresh
virtualenv, then both backends and the `g2048` command with no Swift toolchain on PATH, from a folder outside the
repository. The bundled g2048 and libgym2048.so must link the Swift runtime statically (no libswift*.so).

Slow-ish on a first run (a static release build into .build/wheel, then numpy and gymnasium into the virtualenv).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(shutil.which("ldd") is None, reason="ldd is not installed: it checks the wheel's links")

USER_SCRIPT = textwrap.dedent("""
    import os, sys
    import gymnasium, numpy as np, gym2048
    from gym2048.client import find_binary
    from gym2048.native import find_library

    for path in (gym2048.__file__, find_binary(), find_library()):
        assert path.startswith(sys.prefix), f"{path} is not from the installed wheel"
    for backend in ("inprocess", "server"):
        kwargs = {} if backend == "inprocess" else {"backend": "server"}   # in-process is the default
        env = gymnasium.make("Gym2048-v0", **kwargs)
        obs, info = env.reset(seed=1)
        assert obs.shape == (4, 4) and int((obs > 0).sum()) == 2, obs
        for _ in range(5):
            obs, reward, terminated, truncated, info = env.step(int(np.argmax(info["action_mask"])))
        env.close()
        envs = gymnasium.make_vec("Gym2048-v0", num_envs=8, **kwargs)
        obs, infos = envs.reset(seed=3)
        assert obs.shape == (8, 4, 4), obs.shape
        for _ in range(5):
            obs, rewards, terminations, truncations, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
        envs.close()
    loaded = os.path.realpath(find_library()) in open("/proc/self/maps").read()
    assert loaded, "the in-process backend did not load the bundled library"
    print("wheel works")
""")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, dict[str, str]]:
    """(wheel path, virtualenv folder, an environment without Swift on PATH) after pip wheel + pip install."""
    root = tmp_path_factory.mktemp("wheel")
    environment = {k: v for k, v in os.environ.items() if k not in ("G2048_BIN", "G2048_LIB", "PYTHONPATH")}
    pip = ["-m", "pip", "--disable-pip-version-check"]
    completed = subprocess.run([sys.executable, *pip, "wheel", "--no-deps", "-w", str(root / "dist"), PACKAGE],
                               capture_output=True, text=True, env=environment, timeout=1800)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [wheel] = glob.glob(str(root / "dist" / "gym2048-*.whl"))
    print(f"{os.path.basename(wheel)}: {os.path.getsize(wheel) / 1e6:.1f} MB")
    venv.create(root / "venv", with_pip=True)
    completed = subprocess.run([str(root / "venv" / "bin" / "python"), *pip, "install", "--quiet", wheel],
                               capture_output=True, text=True, env=environment, timeout=900)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    # PATH as a user without Swift has it, with the virtualenv activated.
    folders = [f for f in os.environ.get("PATH", "").split(os.pathsep) if not os.path.isfile(os.path.join(f, "swift"))]
    no_swift = dict(environment, PATH=os.pathsep.join([str(root / "venv" / "bin"), *folders]))
    assert shutil.which("swift", path=no_swift["PATH"]) is None
    (root / "elsewhere").mkdir()
    return wheel, root, no_swift


def test_wheel_is_tagged_manylinux(installed: tuple[str, Path, dict[str, str]]) -> None:
    python, abi, platform = os.path.basename(installed[0])[:-len(".whl")].split("-")[-3:]
    assert (python, abi) == ("py3", "none") and platform.startswith("manylinux_"), os.path.basename(installed[0])


def test_wheel_needs_glibc_2_34_at_most(installed: tuple[str, Path, dict[str, str]]) -> None:
    """The supported platforms say glibc 2.34 (RHEL 9): no bundled file may need a newer symbol version, and the
    tag says the newest one they need."""
    wheel, root, _ = installed
    package = glob.glob(str(root / "venv" / "lib" / "python*" / "site-packages" / "gym2048"))[0]
    newest = 0
    for name in ("bin/g2048", "lib/libgym2048.so"):
        symbols = subprocess.run(["objdump", "-T", os.path.join(package, name)], capture_output=True, text=True,
                                 check=True, timeout=60).stdout
        needed = {(int(minor), symbol) for minor, symbol in re.findall(r"\(GLIBC_2\.(\d+)[.\d]*\)\s+(\S+)", symbols)}
        too_new = sorted(f"{symbol}@GLIBC_2.{minor}" for minor, symbol in needed if minor > 34)
        assert not too_new, f"{name} needs {', '.join(too_new)}: pin it in Sources/CGlibcBaseline/baseline.c"
        newest = max([newest, *(minor for minor, _ in needed)])
    assert os.path.basename(wheel).endswith(f"-manylinux_2_{newest}_x86_64.whl")


def test_bundled_engine_needs_no_swift_runtime(installed: tuple[str, Path, dict[str, str]]) -> None:
    _, root, _ = installed
    package = glob.glob(str(root / "venv" / "lib" / "python*" / "site-packages" / "gym2048"))[0]
    for name in ("bin/g2048", "lib/libgym2048.so"):
        ldd = subprocess.run(["ldd", os.path.join(package, name)], capture_output=True, text=True, timeout=60)
        links = ldd.stdout + ldd.stderr
        assert ldd.returncode == 0 and "libswift" not in links and "not found" not in links, f"{name}:\n{links}"


def test_both_backends_run_without_swift_from_any_folder(installed: tuple[str, Path, dict[str, str]]) -> None:
    _, root, no_swift = installed
    completed = subprocess.run([str(root / "venv" / "bin" / "python"), "-c", USER_SCRIPT], cwd=root / "elsewhere",
                               capture_output=True, text=True, env=no_swift, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "wheel works" in completed.stdout


def test_g2048_command_runs_the_bundled_binary(installed: tuple[str, Path, dict[str, str]]) -> None:
    _, root, no_swift = installed
    command = shutil.which("g2048", path=no_swift["PATH"])
    assert command == str(root / "venv" / "bin" / "g2048"), command
    completed = subprocess.run([command, "--version"], cwd=root / "elsewhere", capture_output=True, text=True,
                               env=no_swift, timeout=60)
    assert completed.returncode == 0 and "g2048" in completed.stdout, completed.stdout + completed.stderr


def test_the_ranking_ships_with_its_page(installed: tuple[str, Path, dict[str, str]]) -> None:
    _, root, no_swift = installed
    check = ("import os, gym2048.rank; "
             "print(os.path.isfile(os.path.join(os.path.dirname(gym2048.rank.__file__), 'page.html')))")
    completed = subprocess.run([str(root / "venv" / "bin" / "python"), "-c", check], cwd=root / "elsewhere",
                               capture_output=True, text=True, env=no_swift, timeout=60)
    assert completed.returncode == 0 and completed.stdout == "True\n", completed.stdout + completed.stderr

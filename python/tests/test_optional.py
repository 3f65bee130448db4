"""The adapters without their optional packages: importing `gym2048.puffer` or `gym2048.sb3` where PufferLib,
Stable-Baselines3 or torch is missing is a ModuleNotFoundError of one line that names the missing module and says
what to install, never a bare "No module named ...". Each import runs in a fresh interpreter in which the package
is made unimportable (None in sys.modules), whether or not it is installed here."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("adapter, blocked, install", [
    ("gym2048.puffer", "pufferlib", "pip install --no-deps pufferlib-core psutil rich"),
    ("gym2048.puffer", "torch", "pip install --no-deps pufferlib-core psutil rich"),
    ("gym2048.sb3", "stable_baselines3", "pip install sb3-contrib"),
    ("gym2048.sb3", "torch", "pip install sb3-contrib")])
def test_a_missing_package_says_what_to_install(adapter: str, blocked: str, install: str) -> None:
    # torch blocked: a stand-in of the adapter's package that imports torch first, as the real ones do.
    stand_in = "" if blocked != "torch" else (
        "import importlib.abc, importlib.machinery\n"
        "class Finder(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in ('pufferlib', 'stable_baselines3'):\n"
        "            import torch\n"
        "        return None\n"
        "sys.meta_path.insert(0, Finder())\n")
    code = (f"import sys\nsys.modules[{blocked!r}] = None\n{stand_in}"
            f"try:\n    import {adapter}\nexcept ModuleNotFoundError as error:\n"
            "    print(type(error).__name__, error.name, error, sep='|')\nelse:\n    print('imported')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    kind, name, message = out.split("|")
    assert kind == "ModuleNotFoundError" and name == blocked, out
    assert "\n" not in message and message.startswith(f"{adapter} needs ") and f"{blocked} is not installed" in message
    assert install in message and "torch" in message, message

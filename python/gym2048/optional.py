"""The optional packages of the adapters (`gym2048.sb3`, `gym2048.puffer`): a missing one is a
ModuleNotFoundError whose one line says what the adapter needs and how to install it, never a bare
"No module named 'torch'" from deep inside another package's import."""

from __future__ import annotations

#: Where the install lines are explained (torch's CPU build first: plain `pip install torch` brings GPU libraries).
GUIDE = "docs/PYTHON.md, \"RL libraries\""


def missing(adapter: str, needs: str, install: str, error: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error for `adapter` whose import of `needs` failed with `error`: names the missing module, what the
    adapter needs and the `install` commands."""
    package = (error.name or "a module").split(".")[0]  # the distribution's import name, not a submodule's
    return ModuleNotFoundError(f"{adapter} needs {needs}, and {package} is not installed: install torch (its CPU "
                               f"build), then {install} (see {GUIDE})", name=package)

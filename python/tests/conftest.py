"""Shared helpers of the Python tests: counting the server processes a test started."""

from __future__ import annotations

import os
import subprocess


def server_children() -> set[int]:
    """The pids of the `g2048 serve` processes this test process started."""
    out = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "g2048 serve"], capture_output=True, text=True).stdout
    return {int(pid) for pid in out.split()}

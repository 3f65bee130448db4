"""Shared helpers of the Python tests: server-feature detection and server-process counting."""

import os
import subprocess

import pytest

from gym2048.client import G2048, G2048Error


def server_children():
    """The pids of the `g2048 serve` processes this test process started."""
    out = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "g2048 serve"], capture_output=True, text=True).stdout
    return {int(pid) for pid in out.split()}


def _server_supports(options, reset=None):
    try:
        with G2048(**options) as client:
            if reset is not None:
                client.reset(**reset)
        return True
    except G2048Error as error:
        if "base64_batch" in error.message or "'seeds'" in error.message:
            return False
        raise


# Features that another change adds to the server; the tests that need them skip until it has them.
HAS_BASE64_BATCH = _server_supports({"num_envs": 2, "observation": "base64_batch"})
HAS_SEEDS = _server_supports({"num_envs": 2}, reset={"seeds": [1, None]})
needs_base64_batch = pytest.mark.skipif(not HAS_BASE64_BATCH, reason="this g2048 has no base64_batch encoding yet")
needs_seeds = pytest.mark.skipif(not HAS_SEEDS, reason="this g2048's reset takes no per-environment seeds yet")

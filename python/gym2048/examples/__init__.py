"""Runnable examples shipped with the package: `python -m gym2048.examples.maskable_ppo --help`."""

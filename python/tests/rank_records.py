"""Games records for the ranking's tests: a protocol's games played by a seeded random player, written by
`gym2048.evaluate(protocol=…, record=…)` as a submitter writes them."""

from __future__ import annotations

from typing import Any

import numpy as np

#: The protocol of the tests' records: 2048 on 3x3, whose 1000 games a random player plays in a tenth of a second.
PROTOCOL = "2048-3x3-v1"


def random_policy(seed: int) -> Any:
    """A policy for `gym2048.evaluate`: a uniformly random legal move, from `seed`'s stream."""
    rng = np.random.default_rng(seed)

    def policy(observations: Any, masks: Any) -> Any:
        return (rng.random(masks.shape) * masks).argmax(axis=1)
    return policy


def random_record(player_seed: int, path: str, protocol: str = PROTOCOL) -> bytes:
    """The bytes of a record of `protocol` played by a random player from `player_seed` (written to `path`)."""
    import gym2048
    gym2048.evaluate(random_policy(player_seed), protocol=protocol, record=path, name=f"random {player_seed}")
    with open(path, "rb") as written:
        return written.read()

"""The number rule of every Python entry: an integer is an integer, exactly.

A seed, a count or an action reaches the engine only as an `int` or a numpy integer (never a bool, a float that
happens to be whole, a string or a NaN), and an array of actions only with an integer dtype and exactly its shape;
anything else is a TypeError or ValueError naming what it got. The environments, `evaluate` and the adapters
(SB3, PufferLib) all read their integers through these functions, so none of them rounds, casts or broadcasts.
Standard library only at import (numpy is imported by the array check), as the client is.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Optional, Sequence

if TYPE_CHECKING:
    import numpy.typing as npt

def is_integer(value: Any) -> bool:
    """True for an `int` or a numpy integer; False for a bool or numpy bool (a flag, not a count) and everything
    else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def integer(value: Any, name: str) -> int:
    """`value` as an int when it is an integer (see `is_integer`), else a TypeError naming `name` and what it got."""
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)


def optional_integer(value: Any, name: str) -> Optional[int]:
    """None, or `value` as `integer` reads it."""
    return None if value is None else integer(value, name)


def seed_value(seed: Any) -> Optional[int]:
    """A `reset(seed=...)` seed: None, or an integer (see `is_integer`) of 0 to 2^64 - 1, checked here, as the engine
    words it, before Gymnasium's generator sees it; else a TypeError or ValueError naming what it got."""
    if seed is None:
        return None
    value = integer(seed, "seed")
    if not 0 <= value < 1 << 64:
        raise ValueError(f"seed must be an unsigned 64-bit integer (0 to {(1 << 64) - 1}), got {value}")
    return value


def vector_seeds(seed: Any, count: int) -> tuple[Optional[int], Optional[list[Optional[int]]]]:
    """A vector environment's `reset(seed=...)` as (one seed, or None; a seed or None per environment, or None): an
    int, or a list, tuple or integer array of `count` entries that are ints or None. Anything else is a TypeError
    (or a ValueError for a sequence of another length) that says what is taken."""
    if seed is None:
        return None, None
    if is_integer(seed):
        return seed_value(seed), None
    if isinstance(seed, (list, tuple)) or type(seed).__name__ == "ndarray":
        entries: Sequence[Any] = list(seed)
        if len(entries) != count:
            raise ValueError(f"seed is a list of {len(entries)} seeds, but there are {count} environments")
        return None, [optional_integer(entry, f"seed[{index}]") for index, entry in enumerate(entries)]
    raise TypeError(f"seed must be an int, a list of {count} ints (or None each) or None; got {type(seed).__name__} "
                    f"{seed!r}")


def action_array(actions: Any, count: int, top: int, names: str = "") -> "npt.NDArray[Any]":
    """`actions` as an integer array of exactly `count` entries 0..`top` (any integer dtype, or a list of ints);
    a float, bool or object dtype is a TypeError, another shape or an entry out of range a ValueError, each naming
    what it got and the action space. Nothing is cast, rounded or broadcast."""
    # On every step of a vector: the messages are made only for an error.
    import numpy as np
    array = np.asarray(actions)
    kind = array.dtype.kind
    if kind not in "iu":
        raise TypeError(f"actions must be integers 0..{top} ({_space(count, top)}), got dtype {array.dtype}")
    if array.shape != (count,):
        raise ValueError(f"actions must have shape ({count},) ({_space(count, top)}), got shape {array.shape}")
    # One pass over the batch: read as unsigned, a negative action is a huge one.
    unsigned = array.view(_unsigned(array.dtype)) if kind == "i" else array
    if count and unsigned.max() > top:
        index = int(np.flatnonzero((array < 0) | (array > top))[0])
        meaning = f"{names}; " if names else ""
        raise ValueError(f"actions[{index}] must be 0..{top} ({meaning}{_space(count, top)}), got {array[index]}")
    return array


_UNSIGNED: dict[Any, Any] = {}


def _unsigned(dtype: Any) -> Any:
    """The unsigned dtype of a signed integer dtype, made once per dtype: a vector's step asks it every time."""
    found = _UNSIGNED.get(dtype)
    if found is None:
        import numpy as np
        found = _UNSIGNED[dtype] = np.dtype(dtype.str.replace("i", "u"))
    return found


def _space(count: int, top: int) -> str:
    """The action space, as the messages name it."""
    return f"the action space is MultiDiscrete([{top + 1}] * {count})"

"""The two rules of every object that owns an engine handle (an in-process session, a loaded network or solution,
a server's pipe, and the environments made of one that cannot save their state):

- one process check, before any lock: an object inherited by a forked child is refused there at once, since a
  thread of the parent may have held its lock at the fork, and no thread of the child would ever release it;
- one copy rule: `copy.copy`, `copy.deepcopy` and `pickle` raise a TypeError that says what to do instead, since a
  copy would share the handle (and closing either would close both's).

The environments that can save their state (`Gym2048Env`, `Gym2048VectorEnv`) make real copies instead, through
`get_state` and `set_state`.
"""

from __future__ import annotations

import os
from typing import Any, NoReturn, Optional

#: This process's id, read once and again in a child after `os.fork` (and every fork Python makes): `os.getpid` is
#: a system call, and every step of an environment asked it. A fork Python does not see (one made by C code) is
#: still refused by the engine, which checks the same at every call on a handle.
_process = os.getpid()


def _forked_here() -> None:
    global _process
    _process = os.getpid()


os.register_at_fork(after_in_child=_forked_here)


class HandleOwner:
    """Mixed into every class that owns an engine handle. `_owner` is the process that made it (set by `_claim`),
    `_what` names it for the fork message ("this player"), `_after_fork` says what to do in a child, and
    `_copy_advice()` what to do instead of a copy."""

    #: The process that made the handle (`_claim`); -1 until then, which no process is.
    _owner: int = -1
    _what = "this object"
    _after_fork = "after a fork, make a new one in the child"

    def _claim(self) -> None:
        """Records the process that owns the handle (call before making it)."""
        self._owner = _process

    def _forked(self) -> bool:
        """True in a process other than the one that made the handle (a forked child); False before `_claim`
        (an object whose making failed has nothing to give back)."""
        return self._owner != -1 and _process != self._owner

    def _not_forked(self) -> None:
        """Refuses a use in a forked child: G2048Error naming the owner and what to do. Call it before any lock.
        On every step of an environment, so one comparison (a method more is a tenth of a one-environment step)."""
        if _process != self._owner:
            from .client import G2048Error
            raise G2048Error(None, f"{self._what} belongs to process {self._owner}; {self._after_fork}")

    def _copy_advice(self) -> str:
        return f"make another {type(self).__name__}"

    def _refuse_copy(self) -> NoReturn:
        raise TypeError(f"a {type(self).__name__} owns an engine handle, which a copy or a pickle cannot carry (the "
                        f"copy would share it, and closing one would close both): {self._copy_advice()}")

    def __copy__(self) -> NoReturn:
        self._refuse_copy()

    def __deepcopy__(self, memo: Any) -> NoReturn:
        self._refuse_copy()

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        self._refuse_copy()


class EngineHandle(HandleOwner):
    """An object that owns a handle of this process's engine library: `_handle` (None once closed), given back by
    the C function named `_destroy` on `close()` or when the object is collected (never from a forked child, which
    does not own it)."""

    _handle: Optional[int] = None
    _destroy = ""

    def close(self) -> None:
        """Release it. Calling it again does nothing."""
        if self._handle is not None and not self._forked():
            from .native import library
            getattr(library(), self._destroy)(self._handle)
        self._handle = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

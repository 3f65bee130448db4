"""The ranking service with a store that writes each game row slowly (1 ms), so a test can kill it in the middle of
a submission's transaction. Run as `python rank_slow_writes.py serve …`, as `python -m gym2048.rank` is run."""

from __future__ import annotations

import sys
import time
import types
import zlib

from gym2048.rank import store


def _slow_compress(data: bytes) -> bytes:
    time.sleep(0.001)
    return zlib.compress(data)


if __name__ == "__main__":
    setattr(store, "zlib", types.SimpleNamespace(compress=_slow_compress, decompress=zlib.decompress))
    from gym2048.rank.__main__ import main
    sys.exit(main(sys.argv[1:]))

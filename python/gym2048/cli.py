"""The `g2048` command pip installs: runs the g2048 binary the package found (:func:`gym2048.client.find_binary`:
the one bundled in the wheel) with the same arguments, in place of this Python process."""

from __future__ import annotations

import os
import sys

from .client import G2048Error, find_binary


def main() -> None:
    try:
        binary = find_binary()
    except G2048Error as error:
        sys.exit(f"g2048: {error.message}")  # one line on stderr, exit status 1
    try:
        os.execv(binary, [binary, *sys.argv[1:]])
    except OSError as error:
        sys.exit(f"g2048: cannot run {binary}: {error.strerror}")


if __name__ == "__main__":
    main()

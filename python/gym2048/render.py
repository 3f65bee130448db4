"""`rgb_array` rendering: a board of exponents as an RGB image, with numpy only (no display, no font library).

Tiles take the original game's colours; their numbers are drawn with a built-in 3×5 bitmap font, scaled to fit.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import numpy.typing as npt

# The original game's palette: background, empty cell, then tiles 2, 4, 8, ... 2048; larger tiles are dark.
_BACKGROUND = (0xBB, 0xAD, 0xA0)
_EMPTY = (0xCD, 0xC1, 0xB4)
_TILES = [(0xEE, 0xE4, 0xDA), (0xED, 0xE0, 0xC8), (0xF2, 0xB1, 0x79), (0xF5, 0x95, 0x63), (0xF6, 0x7C, 0x5F),
          (0xF6, 0x5E, 0x3B), (0xED, 0xCF, 0x72), (0xED, 0xCC, 0x61), (0xED, 0xC8, 0x50), (0xED, 0xC5, 0x3F),
          (0xED, 0xC2, 0x2E)]
_SUPER = (0x3C, 0x3A, 0x32)
_DARK_TEXT = (0x77, 0x6E, 0x65)
_LIGHT_TEXT = (0xF9, 0xF6, 0xF2)

# 3×5 digits, one string per row, "#" = ink.
_GLYPHS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"), "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"), "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"), "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"), "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"), "9": ("###", "#.#", "###", "..#", "###"),
}
_FONT = {c: np.array([[ch == "#" for ch in row] for row in rows], dtype=bool) for c, rows in _GLYPHS.items()}


def tile_size(rows: int, cols: int) -> int:
    """Pixels per tile: 96 up to 5 tiles across, less for larger boards (never below 72, so 16 digits fit)."""
    return max(72, min(96, 480 // max(rows, cols)))


def _text(number: str, scale: int) -> npt.NDArray[np.bool_]:
    """The ink mask of `number` at `scale` pixels per font pixel, one font pixel between digits."""
    glyphs = []
    for index, char in enumerate(number):
        if index:
            glyphs.append(np.zeros((5, 1), dtype=bool))
        glyphs.append(_FONT[char])
    mask = np.concatenate(glyphs, axis=1)
    return np.kron(mask, np.ones((scale, scale), dtype=bool)).astype(bool)


def render_board(board: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """The RGB image (height, width, 3), uint8, of a board of exponents (0 = empty, k = tile 2^k).

    Height and width are multiples of 16, so video encoders take the frames as they are.
    """
    exponents = np.asarray(board, dtype=np.int64)
    rows, cols = exponents.shape
    tile = tile_size(rows, cols)
    gap = max(4, tile // 12)
    height, width = rows * tile + (rows + 1) * gap, cols * tile + (cols + 1) * gap
    full_height, full_width = -(-height // 16) * 16, -(-width // 16) * 16
    image = np.empty((full_height, full_width, 3), dtype=np.uint8)
    image[:] = _BACKGROUND
    top0, left0 = (full_height - height) // 2 + gap, (full_width - width) // 2 + gap
    for r in range(rows):
        for c in range(cols):
            exponent = int(exponents[r, c])
            top, left = top0 + r * (tile + gap), left0 + c * (tile + gap)
            cell = image[top:top + tile, left:left + tile]
            if exponent <= 0:
                cell[:] = _EMPTY
                continue
            cell[:] = _TILES[exponent - 1] if exponent <= len(_TILES) else _SUPER
            number = str(1 << exponent)
            # The largest scale at which the number fits in the tile with a margin.
            scale = max(1, min((tile * 3 // 4) // (4 * len(number) - 1), (tile // 2) // 5))
            ink = _text(number, scale)
            h, w = ink.shape
            y, x = (tile - h) // 2, (tile - w) // 2
            cell[y:y + h, x:x + w][ink] = _DARK_TEXT if exponent <= 2 else _LIGHT_TEXT
    return image


def parse_text(text: str) -> list[npt.NDArray[np.int64]]:
    """The boards (as exponents) in the server's `render` text: rows of "." or tile values, boards separated by
    blank lines."""
    boards = []
    for block in text.strip("\n").split("\n\n"):
        rows: list[Sequence[int]] = []
        for line in block.splitlines():
            rows.append([0 if token == "." else int(token).bit_length() - 1 for token in line.split()])
        boards.append(np.array(rows, dtype=np.int64))
    return boards

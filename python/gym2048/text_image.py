"""Text as an RGB image, with numpy only: the `rgb_array` render mode of the games that render text.

    text_image("  [B]   1\\n    ·   ·")     # (height, width, 3) uint8, light characters on a dark ground

Each character is a 3×5 bitmap glyph (render.py's digits, and below the letters and the punctuation the engine's
games write), scaled up so a frame is readable and video encoders take it. A character without a glyph is drawn
as `?`, so no text fails to render.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .render import _GLYPHS

#: Glyph rows top to bottom, "#" = ink: the letters and the punctuation (render.py has the digits).
_ROWS = {
    "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.", "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###", "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#", "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#", "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##", "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#", "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###",
    "a": "... .## #.# #.# .##", "b": "#.. ##. #.# #.# ##.", "c": "... .## #.. #.. .##", "d": "..# .## #.# #.# .##",
    "e": "... .#. ### #.. .##", "f": ".## #.. ##. #.. #..", "g": ".## #.# .## ..# ##.", "h": "#.. ##. #.# #.# #.#",
    "i": ".#. ... .#. .#. .#.", "j": "..# ... ..# #.# .#.", "k": "#.. #.# ##. ##. #.#", "l": "##. .#. .#. .#. ###",
    "m": "... ##. ### #.# #.#", "n": "... ##. #.# #.# #.#", "o": "... .#. #.# #.# .#.", "p": "... ##. #.# ##. #..",
    "q": "... .## #.# .## ..#", "r": "... .## #.. #.. #..", "s": "... .## #.. ..# ##.", "t": ".#. ### .#. .#. ..#",
    "u": "... #.# #.# #.# .##", "v": "... #.# #.# #.# .#.", "w": "... #.# #.# ### #.#", "x": "... #.# .#. .#. #.#",
    "y": "... #.# .## ..# ##.", "z": "... ### .#. #.. ###",
    " ": "... ... ... ... ...", "[": "##. #.. #.. #.. ##.", "]": ".## ..# ..# ..# .##", "(": ".#. #.. #.. #.. .#.",
    ")": ".#. ..# ..# ..# .#.", "·": "... ... .#. ... ...", ".": "... ... ... ... .#.", ",": "... ... ... .#. #..",
    "-": "... ... ### ... ...", "+": "... .#. ### .#. ...", "=": "... ### ... ### ...", "|": ".#. .#. .#. .#. .#.",
    ":": "... .#. ... .#. ...", "/": "..# ..# .#. #.. #..", "_": "... ... ... ... ###", "*": "... #.# .#. #.# ...",
    "#": "#.# ### #.# ### #.#", "!": ".#. .#. .#. ... .#.", "?": "### ..# .#. ... .#.",
}
_FONT = {char: np.array([[c == "#" for c in row] for row in rows], dtype=bool)
         for char, rows in [*_GLYPHS.items(), *((char, spec.split()) for char, spec in _ROWS.items())]}
_INK = (0xF9, 0xF6, 0xF2)
_GROUND = (0x3C, 0x3A, 0x32)
#: Screen pixels per font pixel.
_SCALE = 4


def glyph(char: str) -> npt.NDArray[np.bool_]:
    """The 5×3 ink mask of `char` (`?`'s for a character without a glyph)."""
    return _FONT.get(char, _FONT["?"])


def text_image(text: str) -> npt.NDArray[np.uint8]:
    """The RGB image (height, width, 3), uint8, of `text`: a cell of 4×6 font pixels per character (the glyph and
    a pixel of spacing), a line per line, a margin of one cell; height and width are multiples of 16."""
    lines = text.rstrip("\n").split("\n")
    columns = max(len(line) for line in lines)
    ink = np.zeros((6 * (len(lines) + 2), 4 * (columns + 2)), dtype=bool)
    for row, line in enumerate(lines, start=1):
        for col, char in enumerate(line, start=1):
            ink[6 * row:6 * row + 5, 4 * col:4 * col + 3] = glyph(char)
    ink = np.kron(ink, np.ones((_SCALE, _SCALE), dtype=bool)).astype(bool)
    height, width = -(-ink.shape[0] // 16) * 16, -(-ink.shape[1] // 16) * 16
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[:] = _GROUND
    image[:ink.shape[0], :ink.shape[1]][ink] = _INK
    return image

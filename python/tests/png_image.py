"""A PNG reader in the standard library alone (zlib and struct), for checking the browser tests' screenshots.

It reads what Chromium writes: 8-bit RGB or RGBA, not interlaced, any of the five row filters. Pixels come back as
rows of (r, g, b) tuples; the alpha is dropped (a screenshot is opaque).

    image = read_png(data)
    image.width, image.height, image.pixel(10, 20)   # (255, 255, 255)
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass
class Image:
    """A decoded image: `rows[y][x]` is the pixel at column x of row y, as (r, g, b)."""
    width: int
    height: int
    rows: list[list[tuple[int, int, int]]]

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        """The colour at column `x`, row `y`."""
        return self.rows[y][x]

    def colours(self, left: int = 0, top: int = 0, right: int | None = None, bottom: int | None = None
                ) -> set[tuple[int, int, int]]:
        """The distinct colours of the rectangle from (left, top) up to (right, bottom), by default the image."""
        right = self.width if right is None else right
        bottom = self.height if bottom is None else bottom
        return {colour for row in self.rows[top:bottom] for colour in row[left:right]}


def read_png(data: bytes) -> Image:
    """Decodes `data`; raises ValueError naming what is wrong (the signature, a chunk's CRC, an unsupported kind)."""
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG: the signature is missing")
    offset, header, compressed = len(SIGNATURE), b"", bytearray()
    while offset < len(data):
        if offset + 8 > len(data):
            raise ValueError(f"the PNG is cut off at byte {offset}")
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length] or b"\0\0\0\0")
        if len(body) != length or zlib.crc32(kind + body) != crc:
            raise ValueError(f"the {kind.decode(errors='replace')} chunk at byte {offset} is damaged (length or CRC)")
        offset += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            compressed += body
        elif kind == b"IEND":
            break
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    channels = {2: 3, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {colour_type}, interlace {interlace}")
    raw = zlib.decompress(bytes(compressed))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise ValueError(f"the image data holds {len(raw)} bytes; {width}x{height} needs {height * (stride + 1)}")
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), previous, channels)
        rows.append([(line[x], line[x + 1], line[x + 2]) for x in range(0, stride, channels)])
        previous = line
    return Image(width, height, rows)


def unfilter(kind: int, line: bytearray, previous: bytearray, step: int) -> bytearray:
    """Undoes one row's filter (PNG specification, section 9): None, Sub, Up, Average or Paeth, in place."""
    if kind == 0:
        return line
    if kind == 2:
        return bytearray((a + b) & 0xFF for a, b in zip(line, previous))
    for i in range(len(line)):
        left = line[i - step] if i >= step else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            up, corner = previous[i], previous[i - step] if i >= step else 0
            estimate = left + up - corner
            near_left, near_up, near_corner = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
            if near_left <= near_up and near_left <= near_corner:
                line[i] = (line[i] + left) & 0xFF
            elif near_up <= near_corner:
                line[i] = (line[i] + up) & 0xFF
            else:
                line[i] = (line[i] + corner) & 0xFF
        else:
            raise ValueError(f"unknown PNG row filter {kind}")
    return line

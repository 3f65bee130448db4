"""The browser tests' tools, on a static page: the DevTools client (tests/chromium.py) and the PNG reader
(tests/png_image.py). A harness that saw no console error or no foreign request would pass any page: these
show it sees both."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import signal
import struct
import threading
import zlib
from pathlib import Path
from typing import Iterator

import pytest

import chromium
from chromium import Chromium
from png_image import read_png

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>static</title><link rel="icon" href="data:,"></head>
<body style="margin:0;background:#fff">
<table id="table" style="border-collapse:collapse">
  <tr><td style="background:#edc22e;width:120px;height:60px">2048</td><td style="background:#3c3a32;color:#fff">4</td></tr>
</table>
<input type="file" id="file">
<p id="status"></p>
<script>
document.getElementById("file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  document.getElementById("status").textContent = file.name + " " + (await file.text()).length;
});
</script>
</body></html>
"""


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serves `folder` on 127.0.0.1 at a free port, quietly; yields the base URL."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()




def test_a_static_page_is_read_driven_and_photographed(browser: Chromium, tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(PAGE)
    upload = tmp_path / "upload.jsonl"
    upload.write_text("x" * 1234)
    with serving(tmp_path) as base:
        page = browser.open_page(640, 480)
        page.navigate(f"{base}/index.html")
        assert page.evaluate("document.querySelectorAll('#table td').length") == 2
        assert page.evaluate("new Promise(done => setTimeout(() => done(6 * 7), 50))") == 42
        page.set_file_input("#file", str(upload))
        assert page.wait_until("document.getElementById('status').textContent") == "upload.jsonl 1234"
        image = read_png(page.screenshot())
        assert (image.width, image.height) == (640, 480)
        assert image.pixel(10, 10) == (0xED, 0xC2, 0x2E)  # the first cell's colour, at the top left
        assert image.pixel(600, 400) == (255, 255, 255)
        assert len(image.colours(0, 0, 240, 60)) > 8  # the cells and their digits, anti-aliased
        assert page.console_errors() == []
        assert all(url.startswith(base) for url in page.requested_urls()), page.requested_urls()


def test_console_errors_exceptions_and_foreign_requests_are_seen(browser: Chromium, tmp_path: Path) -> None:
    (tmp_path / "bad.html").write_text(
        '<link rel="icon" href="data:,"><script>console.error("said", 1); setTimeout(() => { null.x }, 0)</script>'
        '<img src="http://127.0.0.2:9/elsewhere.png">')
    with serving(tmp_path) as base:
        page = browser.open_page(320, 200)
        page.navigate(f"{base}/bad.html")
        errors = page.wait_until("true") and page.console_errors()
        assert any(error == "said 1" for error in errors), errors
        assert any("TypeError" in error for error in errors), errors
        assert "http://127.0.0.2:9/elsewhere.png" in page.requested_urls()


def test_a_missing_chromium_is_a_reason_to_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chromium, "CHROMIUM", "/nonexistent/chromium")
    reason = chromium.unavailable_reason()
    assert reason is not None and reason.startswith("Chromium is not installed at /nonexistent/chromium")


def test_a_browser_that_ended_is_said_so(browser: Chromium) -> None:
    os.killpg(browser.process.pid, signal.SIGKILL)  # the browser and its helpers: none holds the pipe open
    browser.process.wait(timeout=10)
    with pytest.raises(chromium.ProtocolError, match=r"Target.createTarget: Chromium has ended \(exit status -9\)"):
        browser.open_page(100, 100)


def png(width: int, rows: list[bytes], channels: int, filters: list[int]) -> bytes:
    """A PNG of `rows` (raw RGB or RGBA bytes), each row stored with the filter given for it."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    def paeth(a: int, b: int, c: int) -> int:
        p = a + b - c
        return a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c

    stored, previous = b"", bytes(len(rows[0]))
    for row, kind in zip(rows, filters):
        left = [row[i - channels] if i >= channels else 0 for i in range(len(row))]
        corner = [previous[i - channels] if i >= channels else 0 for i in range(len(row))]
        predicted = [[0] * len(row), left, list(previous), [(a + b) // 2 for a, b in zip(left, previous)],
                     [paeth(a, b, c) for a, b, c in zip(left, previous, corner)]][kind]
        stored += bytes([kind]) + bytes((value - guess) & 0xFF for value, guess in zip(row, predicted))
        previous = row
    header = struct.pack(">IIBBBBB", width, len(rows), 8, {3: 2, 4: 6}[channels], 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(stored)) + chunk(b"IEND", b"")


@pytest.mark.parametrize("channels", [3, 4])
def test_the_png_reader_undoes_every_row_filter(channels: int) -> None:
    width = 7
    rows = [bytes((x * 37 + y * 91 + c * 53) % 256 for x in range(width) for c in range(channels)) for y in range(6)]
    image = read_png(png(width, rows, channels, filters=[0, 1, 2, 3, 4, 4]))
    assert (image.width, image.height) == (width, 6)
    for y, row in enumerate(rows):
        assert image.rows[y] == [tuple(row[x * channels:x * channels + 3]) for x in range(width)]


def test_the_png_reader_refuses_a_damaged_file() -> None:
    data = bytearray(png(2, [bytes(6), bytes(6)], 3, filters=[0, 0]))
    with pytest.raises(ValueError, match="signature"):
        read_png(bytes(data[1:]))
    data[20] ^= 1  # inside IHDR
    with pytest.raises(ValueError, match="IHDR chunk at byte 8 is damaged"):
        read_png(bytes(data))

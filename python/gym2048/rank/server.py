"""The ranking over HTTP: `serve(db_path)` answers the API and the page, one thread per connection.

    POST /api/submissions?team=&agent=&description=[&games_per_second=]   body: a games record → 201 {"id","rank","row"}
    GET  /api/protocols | /api/table?protocol=&q= | /api/agents?team=&agent= | /api/submissions/<id>
    GET  /api/submissions/<id>/games/<i>   the game's frames, replayed in the engine
    GET  /api/events                       Server-Sent Events: {"id","protocol"} of each new submission
    GET  /                                 the page

Every answer but the page and the events is JSON; an error is `{"error": reason}` with its status, never a
traceback (that goes to the log, one line per request on stderr).
"""

from __future__ import annotations

import json
import os
import queue
import re
import sys
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping, Optional
from urllib.parse import parse_qsl, urlsplit

from .events import KEEP_ALIVE_SECONDS
from .fields import MAX_BODY_BYTES
from .service import Ranking, Refused

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8048
_PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.html")
_SUBMISSION = re.compile(r"^/api/submissions/(\d{1,18})$")
_GAME = re.compile(r"^/api/submissions/(\d{1,18})/games/(\d{1,9})$")


class RankServer(ThreadingHTTPServer):
    """The HTTP server holding the `ranking` its handlers answer from."""

    daemon_threads = True
    ranking: Ranking


class _Handler(BaseHTTPRequestHandler):
    server: RankServer
    protocol_version = "HTTP/1.1"
    server_version = "gym2048-rank"

    # -- dispatch ------------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._answer(self._get)

    def do_POST(self) -> None:
        self._answer(self._post)

    def _answer(self, route: Callable[[str, dict[str, str]], Optional[tuple[int, Any]]]) -> None:
        """Run `route` and send its (status, JSON value); a Refused is its status with `{"error"}`, anything else a
        500 whose traceback is logged, never sent. A route that answered itself returns None."""
        self.close_connection = True
        self._started = time.perf_counter()
        try:
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            answer = route(parts.path, query)
        except Refused as refused:
            answer = (refused.status, {"error": refused.reason})
        except Exception:
            traceback.print_exc(file=sys.stderr)
            answer = (500, {"error": "the service failed on this request (its log says why)"})
        if answer is not None:
            self._send_json(*answer)

    def _get(self, path: str, query: dict[str, str]) -> Optional[tuple[int, Any]]:
        ranking = self.server.ranking
        if path in ("/", "/index.html"):
            with open(_PAGE, "rb") as page:
                self._send(200, "text/html; charset=utf-8", page.read())
            return None
        if path == "/api/events":
            self._stream_events()
            return None
        if path == "/api/protocols":
            return 200, ranking.describe()
        if path == "/api/table":
            return 200, ranking.table(query.get("protocol"), query.get("q", ""))
        if path == "/api/agents":
            return 200, ranking.history(query.get("team", ""), query.get("agent", ""))
        match = _SUBMISSION.match(path)
        if match:
            return 200, ranking.submission(int(match.group(1)))
        match = _GAME.match(path)
        if match:
            return 200, ranking.game(int(match.group(1)), int(match.group(2)))
        raise Refused(404, f"no such resource: GET {path}")

    def _post(self, path: str, query: dict[str, str]) -> tuple[int, Any]:
        if path != "/api/submissions":
            raise Refused(404, f"no such resource: POST {path}")
        return 201, self.server.ranking.submit(self._body(), query)

    def _body(self) -> bytes:
        """The request's body: `Content-Length` bytes, at most MAX_BODY_BYTES (a larger one is refused unread)."""
        length = self.headers.get("Content-Length")
        if length is None or not length.strip().isdigit():
            raise Refused(411, "a Content-Length header is needed (the record's size in bytes)")
        size = int(length)
        if size > MAX_BODY_BYTES:
            raise Refused(413, f"the record is {size} bytes; the ranking takes at most {MAX_BODY_BYTES} bytes")
        body = self.rfile.read(size)
        if len(body) != size:
            raise Refused(400, f"the body ended after {len(body)} of its {size} bytes")
        return body

    # -- answers -------------------------------------------------------------------------------------------
    def _send_json(self, status: int, value: Any) -> None:
        self._send(status, "application/json", json.dumps(value, allow_nan=False).encode())

    def _send(self, status: int, kind: str, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client left: nothing to tell it
            pass

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """The base class's errors (a malformed request line, an unknown method) as JSON like every other."""
        self.close_connection = True
        self._send_json(code, {"error": message or self.responses.get(code, ("error",))[0]})

    def _stream_events(self) -> None:
        """Server-Sent Events until the client leaves: each new submission as a `submission` event, a comment
        after KEEP_ALIVE_SECONDS of silence."""
        events = self.server.ranking.events
        listener = events.listen()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b": connected\n\n")
            self.wfile.flush()
            while True:
                try:
                    event = listener.get(timeout=KEEP_ALIVE_SECONDS)
                    self.wfile.write(f"event: submission\ndata: {json.dumps(event)}\n\n".encode())
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            events.stop(listener)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        started = getattr(self, "_started", None)
        took = f" {1000 * (time.perf_counter() - started):.0f} ms" if started is not None else ""
        self.log_message('"%s" %s%s', self.requestline, str(code), took)

    def log_message(self, format: str, *args: Any) -> None:
        print(f"{self.address_string()} [{self.log_date_time_string()}] {format % args}", file=sys.stderr, flush=True)


def make_server(db_path: str, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                solutions: Optional[Mapping[str, str]] = None) -> RankServer:
    """The server, bound and ready (`port=0`: any free port, `server.server_address[1]` says which)."""
    ranking = Ranking(db_path, solutions)
    try:
        server = RankServer((host, port), _Handler)
    except OSError:
        ranking.close()
        raise
    server.ranking = ranking
    return server


def serve(db_path: str, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          solutions: Optional[Mapping[str, str]] = None) -> None:
    """Serve the ranking in `db_path` until interrupted (Ctrl-C, or SIGTERM when run on the main thread: a service
    manager's stop), then close the database cleanly; says its address on stdout once listening. A submission in
    flight when it stops is not committed, and its submitter is not told it was."""
    import signal
    import threading
    server = make_server(db_path, host, port, solutions)
    address, bound = server.server_address[:2]
    print(f"gym2048 ranking on http://{address!s}:{bound} (database {db_path})", flush=True)

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop) if threading.current_thread() is threading.main_thread() else None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        server.server_close()
        server.ranking.close()

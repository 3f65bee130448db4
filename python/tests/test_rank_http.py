"""The ranking's HTTP layer in this process: the events' keep-alive, a failure answered without its traceback
(which goes to the log, with a line per request), and the base class's own errors as JSON."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from typing import Any, Iterator

import pytest

from gym2048.rank import server
from gym2048.rank.server import RankServer, make_server


@pytest.fixture
def running(tmp_path: Any) -> Iterator[RankServer]:
    served = make_server(str(tmp_path / "r.sqlite"), port=0)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served
    served.shutdown()
    served.server_close()
    served.ranking.close()


def url(served: RankServer, path: str) -> str:
    return f"http://127.0.0.1:{served.server_address[1]}{path}"


def test_a_silent_event_stream_gets_keep_alive_comments(running: RankServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "KEEP_ALIVE_SECONDS", 0.05)
    with urllib.request.urlopen(url(running, "/api/events"), timeout=10) as stream:
        assert [stream.readline() for _ in range(4)] == [b": connected\n", b"\n", b": keep-alive\n", b"\n"]


def test_a_failure_is_a_500_without_traceback_and_every_request_is_logged(
        running: RankServer, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    def broken(*arguments: Any) -> Any:
        raise RuntimeError("the disk is on fire")
    monkeypatch.setattr(running.ranking, "table", broken)
    with pytest.raises(urllib.error.HTTPError) as failed:
        urllib.request.urlopen(url(running, "/api/table"), timeout=10)
    assert failed.value.code == 500
    answer = json.loads(failed.value.read())
    assert answer == {"error": "the service failed on this request (its log says why)"}
    errors = capfd.readouterr().err
    assert "RuntimeError: the disk is on fire" in errors and '"GET /api/table HTTP/1.1" 500' in errors


def test_the_base_classes_errors_are_json(running: RankServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", running.server_address[1], timeout=10)
    connection.request("DELETE", "/api/submissions/1")
    answer = connection.getresponse()
    assert answer.status == 501 and "error" in json.loads(answer.read())
    connection.close()

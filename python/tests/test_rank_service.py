"""The ranking service over HTTP, in a child process on an ephemeral port: what it ranks, what it refuses and
why, many submitters at once, a kill -9 in the middle of a submission, a restart, and the live events."""

from __future__ import annotations

import http.client
import json
import random
import sqlite3
import subprocess
import threading
import time
import urllib.request
from typing import Any, Callable, Iterator

import pytest

from gym2048 import find_binary
from gym2048.rank.fields import MAX_BODY_BYTES, TEXT_FIELDS
from rank_service import Service
from rank_records import PROTOCOL, random_record


@pytest.fixture
def service(tmp_path: Any) -> Iterator[Service]:
    with Service(str(tmp_path / "ranking.sqlite")) as running:
        yield running


def lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode().splitlines()]


def joined(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in records).encode()


def edited(data: bytes, change: Callable[[list[dict[str, Any]]], Any]) -> bytes:
    records = lines(data)
    change(records)
    return joined(records)


def _an_illegal_action(records: list[dict[str, Any]]) -> None:
    """One game's last action replaced by a move its position does not allow (nothing moves)."""
    from gym2048.game_envs import GameEnv
    from gym2048.games_record import action_alphabet
    header = records[0]
    options = {name: value for name, value in header["config"].items() if value is not None}
    for game in records[1:]:
        env = GameEnv(game=header["game"], **options)
        env.reset(seed=game["seed"])
        for character in game["actions"][:-1]:
            env.step(action_alphabet().index(character))
        illegal = [action for action, legal in enumerate(env.action_masks()) if not legal]
        env.close()
        if game["actions"] and illegal:
            game["actions"] = game["actions"][:-1] + action_alphabet()[illegal[0]]
            return
    raise AssertionError("no game has an illegal move at its last position")


def _other_rules(records: list[dict[str, Any]]) -> None:
    records[0]["config"] = {**records[0]["config"], "rows": records[0]["config"]["rows"] + 1}


def _other_seed(records: list[dict[str, Any]]) -> None:
    records[1]["seed"] += 1


def _edited_score(records: list[dict[str, Any]]) -> None:
    records[1]["score"] += 4


#: Forged records, each with a word its refusal must hold.
FORGERIES: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "an edited score": (lambda data: edited(data, _edited_score), "score"),
    "an action changed": (lambda data: edited(data, _an_illegal_action), "game "),
    "another seed": (lambda data: edited(data, _other_seed), "seed"),
    "other rules": (lambda data: edited(data, _other_rules), "rows"),
    "a game missing": (lambda data: edited(data, lambda records: records.pop()), "games"),
    "no protocol": (lambda data: edited(data, lambda records: records[0].update(protocol=None)), "protocol"),
    "a truncated file": (lambda data: data[:len(data) // 2], "truncated"),
    "malformed JSON": (lambda data: data.replace(b"\n{", b"\n{not json", 1), "JSON"),
    "an empty body": (lambda data: b"", "empty"),
}


def test_a_record_is_ranked_and_forgeries_are_refused_with_their_reason(service: Service, tmp_path: Any) -> None:
    protocol = PROTOCOL
    data = random_record(1, str(tmp_path / "games.jsonl"))
    status, answer = service.submit(data, description="uniformly random", games_per_second="1234.5")
    assert status == 201, answer
    row = answer["row"]
    assert (answer["rank"], row["team"], row["agent"], row["protocol"], row["games_per_second"]) == \
        (1, "team", "agent", protocol, 1234.5)
    games = lines(data)[1:]
    assert row["games"] == len(games) and row["steps"] == sum(game["steps"] for game in games)
    assert row["mean"] == pytest.approx(sum(game["score"] for game in games) / len(games))
    before = service.table(protocol)
    for what, (forge, word) in FORGERIES.items():
        status, answer = service.submit(forge(data), agent=what)
        assert status == 400 and word in answer["error"], (what, answer)
    status, answer = service.submit(data, agent="the same games renamed")
    assert status == 409 and f"submission {row['id']}" in answer["error"]
    for query, reason in (({"team": ""}, "team is missing"), ({"agent": "a\x01b"}, "control character U+0001"),
                          ({"description": "x" * (TEXT_FIELDS["description"][0] + 1)}, "at most"),
                          ({"games_per_second": "fast"}, "games_per_second must be a number"),
                          ({"colour": "red"}, "unknown parameter 'colour'")):
        status, answer = service.submit(data, **{"team": "t", "agent": "a", **query})
        assert status == 400 and reason in answer["error"], (query, answer)
    assert service.table(protocol) == before


def test_a_body_too_large_or_without_its_length_is_refused_unread(service: Service) -> None:
    host, port = service.url.removeprefix("http://").split(":")
    for headers, status, reason in (({"Content-Length": str(MAX_BODY_BYTES + 1)}, 413, f"at most {MAX_BODY_BYTES}"),
                                    ({}, 411, "Content-Length")):
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.putrequest("POST", "/api/submissions?team=t&agent=a")
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        answer = connection.getresponse()
        assert answer.status == status and reason in json.loads(answer.read())["error"]
        connection.close()


def test_the_read_api_answers_json_and_errors_without_tracebacks(service: Service, tmp_path: Any) -> None:
    protocol = PROTOCOL
    data = random_record(2, str(tmp_path / "games.jsonl"))
    _, answer = service.submit(data, team="Alpha", agent="Random")
    identifier = answer["id"]
    status, described = service.call("/api/protocols")
    assert status == 200 and {p["name"]: p["submissions"] for p in described["protocols"]}[protocol] == 1
    assert described["limits"]["max_body_bytes"] == MAX_BODY_BYTES
    assert [row["id"] for row in service.table(protocol, "alp")] == [identifier]
    assert service.table(protocol, "RANDOM")[0]["id"] == identifier
    assert service.table(protocol, "nobody") == []
    status, history = service.call("/api/agents", team="Alpha", agent="Random")
    assert status == 200 and [row["id"] for row in history["rows"]] == [identifier]
    status, submission = service.call(f"/api/submissions/{identifier}")
    games = lines(data)[1:]
    assert status == 200 and submission["scores"] == [game["score"] for game in games]
    last = len(games) - 1
    status, replay = service.call(f"/api/submissions/{identifier}/games/{last}")
    assert status == 200 and replay["seed"] == str(games[last]["seed"])
    frames = replay["frames"]
    assert len(frames) == games[last]["steps"] + 1 and frames[-1]["score"] == games[last]["score"]
    assert [frame["step"] for frame in frames] == list(range(len(frames))) and frames[0]["action"] is None
    for path, status in ((f"/api/submissions/{identifier}/games/{last + 1}", 404), ("/api/submissions/999", 404),
                         ("/api/table?protocol=no-such-v1", 404), ("/api/agents", 400), ("/nothing", 404)):
        got, answer = service.call(path)
        assert got == status and answer["error"] and "Traceback" not in answer["error"], path


def test_another_games_record_is_ranked_and_replayed_from_its_protocol(service: Service, tmp_path: Any) -> None:
    # The service names no game: a card game's record, written by g2048, is verified and replayed as 2048's are.
    path = tmp_path / "cards.jsonl"
    subprocess.run([find_binary(), "eval", "--game", "memorize", "--protocol", "memorize-4x4-v1", "--agent", "perfect",
                    "--record", str(path)], check=True, capture_output=True, timeout=120)
    data = path.read_bytes()
    status, answer = service.submit(data, agent="perfect memory")
    assert status == 201 and (answer["row"]["game"], answer["row"]["protocol"]) == ("memorize", "memorize-4x4-v1")
    game = lines(data)[1]
    status, replay = service.call(f"/api/submissions/{answer['id']}/games/0")
    frames = replay["frames"]
    assert status == 200 and len(frames) == game["steps"] + 1
    assert frames[-1]["score"] == pytest.approx(game["score"])
    assert all(len(frame["grid"]) == len(frame["labels"]) == 4 for frame in frames)


def test_the_page_is_one_file_with_the_ids_tests_drive_and_nothing_from_elsewhere(service: Service) -> None:
    with urllib.request.urlopen(service.url + "/", timeout=30) as answer:
        page = answer.read().decode()
        assert answer.headers["Content-Type"].startswith("text/html")
    for name in ("table", "search", "replay", "replay-board", "replay-step", "submit-form", "status"):
        assert f'id="{name}"' in page, name
    for outside in ('src="http', "src='http", 'href="http', "@import", "url(http"):
        assert outside not in page


def test_eight_submitters_at_once_give_forty_rows(service: Service, tmp_path: Any) -> None:
    protocol = PROTOCOL
    records = [[random_record(100 + 5 * submitter + k, str(tmp_path / f"{submitter}-{k}.jsonl"))
                for k in range(5)] for submitter in range(8)]
    answers: list[tuple[int, Any]] = []
    lock = threading.Lock()

    def submitter(number: int) -> None:
        for k, data in enumerate(records[number]):
            answer = service.submit(data, team=f"team {number}", agent=f"agent {k}")
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=submitter, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(status for status, _ in answers) == [201] * 40, [a for s, a in answers if s != 201][:3]
    rows = service.table(protocol)
    assert len(rows) == 40 and len({row["id"] for row in rows}) == 40
    assert [row["mean"] for row in rows] == sorted((row["mean"] for row in rows), reverse=True)


def check_database(path: str) -> list[tuple[int, int, int]]:
    """The database passes integrity_check and every submission holds all its games: (id, games, rows) each."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        held = db.execute("SELECT s.id, s.games, (SELECT COUNT(*) FROM games g WHERE g.submission_id = s.id) "
                          "FROM submissions s").fetchall()
        orphans = db.execute("SELECT COUNT(*) FROM games WHERE submission_id NOT IN (SELECT id FROM submissions)")
        assert orphans.fetchone()[0] == 0
    for identifier, games, rows in held:
        assert games == rows, f"submission {identifier} holds {rows} of its {games} games"
    return held


def test_kill_9_during_submissions_leaves_each_whole_or_absent(tmp_path: Any) -> None:
    # The store writes each game row 1 ms slowly here (tests/rank_slow_writes.py): a 1000-game submission's
    # transaction is open for seconds, so the random kills land in its verification and in its writing.
    db = str(tmp_path / "ranking.sqlite")
    data = [random_record(seed, str(tmp_path / f"{seed}.jsonl")) for seed in range(5)]
    with Service(db, launcher="rank_slow_writes.py") as service:
        started = time.perf_counter()
        status, first = service.submit(data[0])
        took = time.perf_counter() - started
        assert status == 201, first
    rng = random.Random(5)
    for attempt, record in enumerate(data[1:], start=1):
        with Service(db, launcher="rank_slow_writes.py") as service:
            thread = threading.Thread(target=lambda: _ignore(lambda: service.submit(record, agent=str(attempt))))
            thread.start()
            time.sleep(rng.uniform(0.05, 1.1) * took)
            service.kill()
            thread.join()
        held = check_database(db)
        assert first["id"] in [identifier for identifier, _, _ in held]
    with Service(db) as service:
        rows = service.table("2048-3x3-v1")
        assert {row["id"] for row in rows} == {identifier for identifier, _, _ in check_database(db)}
        assert service.submit(data[-1], agent="again")[0] in (201, 409)


def _ignore(call: Callable[[], Any]) -> None:
    try:
        call()
    except OSError:  # the service was killed while we waited
        pass


def test_a_restart_keeps_everything(tmp_path: Any) -> None:
    db = str(tmp_path / "ranking.sqlite")
    protocol = PROTOCOL
    with Service(db) as service:
        for seed in range(3):
            assert service.submit(random_record(seed, str(tmp_path / f"{seed}.jsonl")), agent=str(seed))[0] == 201
        before = service.table(protocol)
        details = service.call(f"/api/submissions/{before[0]['id']}")
    with Service(db) as service:
        assert service.table(protocol) == before
        assert service.call(f"/api/submissions/{before[0]['id']}") == details


def test_events_announce_a_new_submission(service: Service, tmp_path: Any) -> None:
    protocol = PROTOCOL
    data = random_record(9, str(tmp_path / "games.jsonl"))
    with urllib.request.urlopen(service.url + "/api/events", timeout=30) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        assert [stream.readline(), stream.readline()] == [b": connected\n", b"\n"]
        status, answer = service.submit(data)
        assert status == 201
        seen = [stream.readline() for _ in range(3)]
    assert seen[0] == b"event: submission\n"
    assert json.loads(seen[1].removeprefix(b"data: ")) == {"id": answer["id"], "protocol": protocol}


def test_sigterm_stops_the_service_cleanly(tmp_path: Any) -> None:
    # A service manager's stop: exit 0, the database closed (its write-ahead log checkpointed and removed), and
    # everything committed served by the next start.
    import os
    import signal
    db = str(tmp_path / "ranking.sqlite")
    service = Service(db)
    try:
        assert service.submit(random_record(4, str(tmp_path / "4.jsonl")))[0] == 201
        before = service.table(PROTOCOL)
        service.process.send_signal(signal.SIGTERM)
        assert service.process.wait(timeout=30) == 0
    finally:
        if service.process.poll() is None:
            service.kill()
    assert not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") == 0
    with Service(db) as again:
        assert again.table(PROTOCOL) == before

"""`g2048 rank submit|show` (the Swift client) against the real ranking service: a record verified and ranked, its
row printed; a repeat and a forgery refused in the service's words on stderr with exit 1; the table as text and
as JSON. The Swift tests cover the client's failures against a service in the test; this checks that the two
sides agree on the API."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import gym2048
from rank_records import PROTOCOL, random_record
from rank_service import Service


def g2048(*arguments: str, url: str) -> subprocess.CompletedProcess[str]:
    """Runs `g2048 rank …` with the service at `url` given by G2048_RANK_URL (as a user's shell would)."""
    return subprocess.run([gym2048.find_binary(), "rank", *arguments], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, G2048_RANK_URL=url))


def test_g2048_rank_submits_shows_and_relays_refusals(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    data = random_record(5, str(path))
    with Service(str(tmp_path / "ranking.sqlite")) as service:
        done = g2048("submit", "--team", "Blue", "--agent", "Dice", "--description", "random moves", str(path),
                     url=service.url)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == f"submission 1: rank 1 in {PROTOCOL}, every game replayed"
        assert lines[1].split() == ["rank", "team", "agent", "player", "games", "mean", "median", "max", "date"]
        row = service.table(PROTOCOL)[0]
        mean, half = f"{row['mean']:.1f}", f"{(row['ci_high'] - row['ci_low']) / 2:.1f}"
        assert lines[2].split()[:8] == ["1", "Blue", "Dice", "random", "5", str(row["games"]), mean, "±"]
        assert lines[2].split()[8] == half

        again = g2048("submit", "--team", "Blue", "--agent", "Dice", str(path), url=service.url)
        assert again.returncode == 1 and again.stdout == ""
        assert again.stderr.startswith(f"error: refused by {service.url} (HTTP 409): this record is already ranked")

        header, first, *rest = data.decode().splitlines()
        game = json.loads(first)
        game["score"] += 4
        forged = tmp_path / "forged.jsonl"
        forged.write_text("\n".join([header, json.dumps(game), *rest]) + "\n")
        refused = g2048("submit", "--team", "Red", "--agent", "Liar", str(forged), url=service.url)
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr.startswith(f"error: refused by {service.url} (HTTP 400): game 0 "), refused.stderr
        assert refused.stderr.count("\n") == 1

        shown = g2048("show", "--protocol", PROTOCOL, url=service.url)
        assert shown.returncode == 0
        assert shown.stdout.splitlines()[0] == f"{PROTOCOL}: 1 submission"
        assert shown.stdout.splitlines()[2].split()[:3] == ["1", "Blue", "Dice"]
        answer = json.loads(g2048("show", "--protocol", PROTOCOL, "--json", url=service.url).stdout)
        assert answer["protocol"] == PROTOCOL and [r["description"] for r in answer["rows"]] == ["random moves"]
        nothing = g2048("show", "--protocol", PROTOCOL, "--search", "nobody", url=service.url)
        assert nothing.stdout == f"{PROTOCOL}: no submissions holding 'nobody'\n"
        unknown = g2048("show", "--protocol", "2048-9x9-v7", url=service.url)
        assert unknown.returncode == 1 and "(HTTP 404): unknown protocol 2048-9x9-v7" in unknown.stderr

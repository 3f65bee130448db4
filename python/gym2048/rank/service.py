"""The ranking's rules, apart from HTTP: a submission is verified by the engine, checked against the protocol's
and the submitter's limits, scored against the solution where the protocol has one, stored, and announced."""

from __future__ import annotations

import os
import threading
from typing import Any, Mapping, Optional

import gym2048

from .events import Events
from .fields import FieldRefused, digest, limits, submitter
from .optimal import optimality, solution_fits
from .store import Duplicate, Store


class Refused(Exception):
    """A request the ranking refuses: the HTTP `status` and the `reason` the client is told."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class Ranking:
    """The service's state: the store, the protocols the engine declares, the solutions given for some of them,
    and the event listeners."""

    def __init__(self, db_path: str, solutions: Optional[Mapping[str, str]] = None) -> None:
        self.protocols: dict[str, dict[str, Any]] = {p["name"]: p for p in gym2048.protocols()}
        self.solutions: dict[str, Any] = {}
        for name, path in (solutions or {}).items():
            if name not in self.protocols:
                raise ValueError(f"--solution {name}: no such protocol ({self._names()})")
            solution = gym2048.Solution(path)
            mismatch = solution_fits(solution, self.protocols[name])
            if mismatch is not None:
                raise ValueError(f"--solution {name}={path} does not solve {name}: {mismatch}")
            self.solutions[name] = solution
        self.store = Store(db_path)
        self.events = Events()
        # Verifications run beside each other (the C ABI is thread safe per call), one per core at most, so that
        # many large uploads at once queue rather than hold all their replays in memory.
        self._verifying = threading.BoundedSemaphore(os.cpu_count() or 1)

    def describe(self) -> dict[str, Any]:
        """`GET /api/protocols`: each protocol with its submission count and whether it is solved, and the limits."""
        counts = self.store.counts()
        return {"protocols": [{**protocol, "submissions": counts.get(name, 0), "solved": name in self.solutions}
                              for name, protocol in self.protocols.items()], "limits": limits()}

    def submit(self, body: bytes, query: Mapping[str, str]) -> dict[str, Any]:
        """Verify and store one record; `{"id", "rank", "row"}`. Raises Refused (400 for a record or field the
        ranking refuses, 409 for one already stored)."""
        try:
            fields = submitter(query)
        except FieldRefused as error:
            raise Refused(400, str(error)) from None
        with self._verifying:
            try:
                verified = gym2048.verify_games(body)
            except gym2048.RecordRefused as error:
                raise Refused(400, str(error)) from None
        name = verified.get("protocol")
        if name is None:
            raise Refused(400, f"the record was not played under a protocol: play it with --protocol NAME "
                               f"({self._names()})")
        self._protocol(name, status=400)
        identity = digest(name, verified["results"])
        existing = self.store.find(identity)
        if existing is not None:
            raise Refused(409, str(Duplicate(existing)))
        scored = None
        if name in self.solutions:
            scored = optimality(self.solutions[name], self.protocols[name], verified["results"])
        try:
            identifier = self.store.add(fields, verified, identity, len(body), scored)
        except Duplicate as error:
            raise Refused(409, str(error)) from None
        row = self.store.submission(identifier)
        assert row is not None
        self.events.publish({"id": identifier, "protocol": name})
        row.pop("scores")
        return {"id": identifier, "rank": row["rank"], "row": row}

    def table(self, protocol: Optional[str], query: str) -> dict[str, Any]:
        """`GET /api/table`: the protocol's ranking (the first protocol when none is named)."""
        name = protocol or next(iter(self.protocols))
        self._protocol(name)
        return {"protocol": name, "query": query, "rows": self.store.table(name, query)}

    def history(self, team: str, agent: str) -> dict[str, Any]:
        """`GET /api/agents`: every submission of one team's agent, oldest first."""
        if not team or not agent:
            raise Refused(400, "team and agent are both needed")
        return {"team": team, "agent": agent, "rows": self.store.history(team, agent)}

    def submission(self, identifier: int) -> dict[str, Any]:
        row = self.store.submission(identifier)
        if row is None:
            raise Refused(404, f"no submission {identifier}")
        return row

    def game(self, identifier: int, index: int) -> dict[str, Any]:
        """`GET /api/submissions/<id>/games/<i>`: the game replayed in the engine, frame by frame."""
        from .replay import frames
        row = self.submission(identifier)
        game = self.store.game(identifier, index)
        if game is None:
            raise Refused(404, f"submission {identifier} has no game {index} (it has {row['games']})")
        replayed = frames(self._protocol(row["protocol"]), game["seed"], game["actions"])
        return {"id": identifier, "index": index, "protocol": row["protocol"], "score": game["score"],
                "steps": game["steps"], "outcome": game["outcome"], **replayed}

    def _protocol(self, name: str, status: int = 404) -> dict[str, Any]:
        """The protocol `name`; Refused with `status` when the engine declares none of that name."""
        if name not in self.protocols:
            raise Refused(status, f"unknown protocol {name} ({self._names()})")
        return self.protocols[name]

    def _names(self) -> str:
        return f"the protocols: {', '.join(self.protocols)}"

    def close(self) -> None:
        self.store.close()


"""`python -m gym2048.rank serve|submit|show`: the ranking service and its client on the command line.

Exit codes: 0 done, 1 refused or failed (the reason on stderr), 64 a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional, Sequence

from .client import RankRefused, show, submit
from .server import DEFAULT_HOST, DEFAULT_PORT, serve
from .store import StoreError

#: Where the client finds the service when --url is not given.
DEFAULT_URL = os.environ.get("G2048_RANK_URL", f"http://{DEFAULT_HOST}:{DEFAULT_PORT}")
_USAGE_ERROR = 64


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(_USAGE_ERROR)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m gym2048.rank", description="The Gym2048 ranking: verified games, ranked.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("serve", help="serve the ranking and its page",
                              description="Serve the ranking API and its page until interrupted.")
    run.add_argument("--db", default="ranking.sqlite", help="the SQLite file (default: ranking.sqlite)")
    run.add_argument("--host", default=DEFAULT_HOST, help=f"the address to listen on (default: {DEFAULT_HOST})")
    run.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the port, 0 for any (default: {DEFAULT_PORT})")
    run.add_argument("--solution", action="append", default=[], metavar="PROTOCOL=FILE",
                     help="a `g2048 solve` file of a protocol's board: its submissions get their fraction of "
                          "optimal play (repeatable)")
    send = commands.add_parser("submit", help="submit a games record",
                               description="Submit a games record (`g2048 eval --protocol NAME --record FILE`).")
    send.add_argument("--url", default=DEFAULT_URL, help=f"the service (default: {DEFAULT_URL}, or $G2048_RANK_URL)")
    send.add_argument("--team", required=True, help="your team's name")
    send.add_argument("--agent", required=True, help="the agent's name")
    send.add_argument("--description", default="", help="how the agent plays (optional)")
    send.add_argument("--games-per-second", type=float, default=None, help="its speed, as you measured it (optional)")
    send.add_argument("file", help="the games record")
    table = commands.add_parser("show", help="print the ranking", description="Print a protocol's ranking.")
    table.add_argument("--url", default=DEFAULT_URL, help=f"the service (default: {DEFAULT_URL}, or $G2048_RANK_URL)")
    table.add_argument("--protocol", default=None, help="the protocol (default: the first)")
    table.add_argument("--search", default=None, help="only teams or agents holding this text")
    table.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser


def _solutions(pairs: list[str]) -> dict[str, str]:
    solutions = {}
    for pair in pairs:
        name, equals, path = pair.partition("=")
        if not equals or not name or not path:
            raise ValueError(f"--solution takes PROTOCOL=FILE, got {pair!r}")
        solutions[name] = path
    return solutions


def format_table(rows: list[dict[str, Any]]) -> str:
    """The rows as aligned text columns: rank, team, agent, player, games, mean ± the 95 % interval's half width,
    median, % of optimal play where known, and the date."""
    header = ("rank", "team", "agent", "player", "games", "mean", "median", "optimal", "date")
    lines = [header] + [(str(row["rank"]), row["team"], row["agent"], row["player"], str(row["games"]),
                         f"{row['mean']:.1f} ± {(row['ci_high'] - row['ci_low']) / 2:.1f}", f"{row['median']:.1f}",
                         "" if row["optimal_fraction"] is None else f"{100 * row['optimal_fraction']:.2f} %",
                         row["created"][:10]) for row in rows]
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        if arguments.command == "serve":
            serve(arguments.db, arguments.host, arguments.port, _solutions(arguments.solution))
        elif arguments.command == "submit":
            if not os.path.isfile(arguments.file):
                raise ValueError(f"{arguments.file}: no such file")
            answer = submit(arguments.url, arguments.team, arguments.agent, arguments.file, arguments.description,
                            arguments.games_per_second)
            print(f"submission {answer['id']}: rank {answer['rank']} in {answer['row']['protocol']}")
            print(format_table([answer["row"]]))
        else:
            rows = show(arguments.url, arguments.protocol, arguments.search)
            print(json.dumps(rows, indent=1) if arguments.json else format_table(rows))
    except RankRefused as refused:
        print(f"refused: {refused.reason}", file=sys.stderr)
        return 1
    except (ValueError, OSError, StoreError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

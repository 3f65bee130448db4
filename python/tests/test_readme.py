"""The README's Python program, run as written against the installed package: the front page stays true when
the package changes."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re
from typing import Any

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def readme_block(name: str) -> str:
    """The fenced code after `<!-- check: name -->` in README.md."""
    match = re.search(rf"<!-- check: {re.escape(name)} -->\n```[a-z]*\n(.*?)\n```", README.read_text(), re.S)
    assert match, f"README.md has no code block after <!-- check: {name} -->"
    return match.group(1)


def test_readme_python_program_runs_and_prints_a_score() -> None:
    output = io.StringIO()
    namespace: dict[str, Any] = {}
    with contextlib.redirect_stdout(output):
        exec(compile(readme_block("python"), "README.md (python)", "exec"), namespace)
    assert re.fullmatch(r"score \d+\n", output.getvalue()), output.getvalue()
    namespace["env"].close()
    namespace["envs"].close()

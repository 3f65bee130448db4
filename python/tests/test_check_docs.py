"""Scripts/check-docs.py catches what it promises: here, a section whose text starts mid-sentence."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from script_module import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "Scripts" / "check-docs.py"


def checker() -> ModuleType:
    return load_script(SCRIPT, "check_docs")


def test_a_section_that_starts_mid_sentence_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nA sentence.\n\n## Cut\n\notherwise; the rest.\n\n## Whole\n\n`g2048` runs.\n\n```\n# not a heading\nlower\n```\n")
    problems: list[str] = []
    checker().check_section_starts(str(page), problems)
    assert problems == [f"{page}:5: the section 'Cut' starts mid-sentence: 'otherwise; the rest.'"]

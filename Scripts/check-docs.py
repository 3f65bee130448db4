#!/usr/bin/env python3
"""Checks the repository's Markdown documents, as the test command runs it.

    python3 Scripts/check-docs.py

- Every relative link in every tracked Markdown file (README.md, CHANGELOG.md, docs/, Examples/) points to a file
  or folder that exists, and its `#anchor`, if any, to a heading of that file (GitHub's anchors: lower case,
  punctuation dropped, spaces as hyphens, a repeated heading numbered -1, -2, ...).
- Every guide in docs/ is linked from README.md, and README.md has at most 250 lines.
- The README's shell lines agree with each other: a file that `g2048 eval`, `play` or `train --resume` reads was
  written by a `g2048 train --out` line before it, and `g2048` is on PATH (an `export PATH=` line) before the
  first line that runs it bare.
- No section starts mid-sentence: the first text after a heading does not start in lower case.

Prints each problem as `file:line: ...` and exits 1 when there is one; standard library only.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def tracked_markdown():
    """The Markdown files git tracks, and the new ones it does not ignore."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return sorted(path for path in out.split("\n") if path and os.path.exists(os.path.join(ROOT, path)))


def prose_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    inside = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    """The anchors of a Markdown file's headings."""
    if path not in cache:
        seen, result = {}, set()
        with open(path, encoding="utf-8") as file:
            for _, line in prose_lines(file.read()):
                match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not match:
                    continue
                base = slug(match.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                result.add(base if count == 0 else f"{base}-{count}")
        cache[path] = result
    return cache[path]


def check_links(path, problems):
    full = os.path.join(ROOT, path)
    with open(full, encoding="utf-8") as file:
        text = file.read()
    for number, line in prose_lines(text):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not checked here
                continue
            where, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(full), where)) if where else full
            if not os.path.exists(resolved):
                problems.append(f"{path}:{number}: the link '{target}' points to {os.path.relpath(resolved, ROOT)}, which does not exist")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                problems.append(f"{path}:{number}: the link '{target}' names the anchor #{anchor}, which {os.path.relpath(resolved, ROOT)} does not have")


def check_readme(problems):
    readme = os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as file:
        text = file.read()
    lines = text.split("\n")
    if len(lines) - 1 > 250:
        problems.append(f"README.md: {len(lines) - 1} lines; the front page keeps to 250")
    linked = {os.path.normpath(os.path.join(ROOT, target.partition("#")[0])) for target in LINK.findall(text)}
    for guide in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if guide.endswith(".md") and os.path.join(ROOT, "docs", guide) not in linked:
            problems.append(f"README.md: the guide docs/{guide} is not linked from the front page")
    written, on_path = set(), False
    for number, line in enumerate(lines, 1):
        command = line.split("#")[0].strip()
        if command.startswith("export PATH=") and ".build/release" in command:
            on_path = True
        words = command.split()
        if not words or words[0] != "g2048":
            continue
        if not on_path:
            problems.append(f"README.md:{number}: '{command}' runs g2048 before a line puts it on PATH")
        for flag in ("--weights", "--resume"):
            if flag in words[:-1]:
                read = words[words.index(flag) + 1]
                if read not in written:
                    problems.append(f"README.md:{number}: '{command}' reads {read}, which no g2048 train --out line before it writes")
        if len(words) > 1 and words[1] == "train" and "--out" in words[:-1]:
            written.add(words[words.index("--out") + 1])


def check_section_starts(path, problems):
    """A section whose text starts in lower case lost its first words (an edit cut the sentence)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    fenced = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not re.match(r"#+ ", line):
            continue
        following = next((text for text in lines[number:] if text.strip()), "")
        if re.match(r"[a-z]", following):
            problems.append(f"{path}:{number}: the section '{line.lstrip('# ')}' starts mid-sentence: '{following[:40]}'")


def main():
    problems = []
    files = tracked_markdown()
    for path in files:
        check_links(path, problems)
        check_section_starts(path, problems)
    check_readme(problems)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"documents: {len(files)} Markdown files, every relative link and anchor resolves; the README links every guide")
    return 0


if __name__ == "__main__":
    sys.exit(main())

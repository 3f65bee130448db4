#!/usr/bin/env bash
# Runs the README's first steps as a newcomer would, so that the front page cannot drift from what works:
#
#   1. the Swift quick start: its Package.swift and main.swift, in a new package beside a copy of this
#      repository in a folder named `nc` (not `Gym2048`: a package found by path is named after its folder),
#      built and run;
#   2. the `g2048` lines: built, put on PATH by the README's own export line, then train, eval, train --resume and
#      play, in a scratch folder (train's `--seconds 60` shortened to 2);
#   3. the protocol line, whose reply must be a JSON-RPC result.
#
#     bash Scripts/check-quickstart.sh        # from anywhere; it needs `swift build -c release` done
#
# The blocks are the fenced code after `<!-- check: NAME -->` in README.md. Everything is made in a temporary
# folder, removed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gym2048-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The fenced block after `<!-- check: $1 -->` in README.md.
block() {
    awk -v name="<!-- check: $1 -->" '
        $0 == name { armed = 1; next }
        armed && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }
    ' "$root/README.md"
}
for name in swift-package swift-main shell protocol; do
    [ -n "$(block "$name")" ] || { echo "error: README.md has no code block after <!-- check: $name -->" >&2; exit 1; }
done

echo "== the README's Swift quick start, against a clone in a folder named 'nc'"
mkdir -p "$work/nc" "$work/MyAgent/Sources/MyAgent"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$work/nc"
block swift-package | sed 's|^let gym2048 = "[^"]*"|let gym2048 = "../nc"|' >"$work/MyAgent/Package.swift"
grep -q '^let gym2048 = "../nc"' "$work/MyAgent/Package.swift" \
    || { echo "error: the README's Package.swift has no 'let gym2048 = \"…\"' line to point at the clone" >&2; exit 1; }
block swift-main >"$work/MyAgent/Sources/MyAgent/main.swift"
(cd "$work/MyAgent" && swift build 2>&1 && ./.build/debug/MyAgent) >"$work/swift.out" 2>&1 \
    || { cat "$work/swift.out" >&2; echo "error: the README's Swift quick start does not build and run" >&2; exit 1; }
grep -q '^score [0-9]' "$work/swift.out" || { cat "$work/swift.out" >&2; echo "error: the quick start printed no score" >&2; exit 1; }
grep -q 'warning:' "$work/swift.out" && { cat "$work/swift.out" >&2; echo "error: the quick start builds with warnings" >&2; exit 1; }
tail -1 "$work/swift.out"

echo "== the README's g2048 lines, from a scratch folder"
mkdir "$work/first-hour"
{
    echo "set -euo pipefail"
    echo "cd '$root'"
    # Each line as written, but for the export run from the repository's root (it names \$PWD) and a 2 s train.
    block shell | sed -e 's|--seconds 60|--seconds 2|' -e "s|^g2048 |cd '$work/first-hour' \&\& g2048 |"
    echo "cd '$work/first-hour' && g2048 train --seconds 2 --resume weights.bin"
} >"$work/first-hour.sh"
G2048_PROGRESS=off bash "$work/first-hour.sh" </dev/null >"$work/shell.out" 2>&1 \
    || { cat "$work/shell.out" >&2; echo "error: the README's g2048 lines fail (run: $(cat "$work/first-hour.sh"))" >&2; exit 1; }
grep -q '^mean score' "$work/shell.out" || { cat "$work/shell.out" >&2; echo "error: g2048 eval printed no mean score" >&2; exit 1; }
echo "train, eval, play and train --resume ran; $(grep '^mean score' "$work/shell.out")"

echo "== the README's protocol line"
reply=$(cd "$work" && PATH="$root/.build/release:$PATH" bash -c "$(block protocol)")
case "$reply" in
    '{"jsonrpc":"2.0","id":1,"result":{'*) echo "${reply:0:60}…" ;;
    *) echo "error: the README's protocol line answered: $reply" >&2; exit 1 ;;
esac

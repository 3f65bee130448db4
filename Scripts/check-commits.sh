#!/usr/bin/env bash
# Checks the history's form from the commit where the rule began: every later commit has a subject of at most
# 72 characters and a body (the why, with figures), as docs/CONTRIBUTING.md asks.
#
#     bash Scripts/check-commits.sh [base]     # base: the last commit before the rule (default c5c3266)
#
# Commits up to the base are the history from before the rule and are not checked. Exits 1 naming each commit
# at fault; skips with a note when the base is not in this clone's history (a shallow clone).
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:-c5c3266}
if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null || ! git merge-base --is-ancestor "$base" HEAD; then
    echo "note: commit $base is not in this clone's history; commit messages not checked" >&2
    exit 0
fi
failed=0 count=0
while read -r commit; do
    count=$((count + 1))
    subject=$(git log -1 --format=%s "$commit")
    body=$(git log -1 --format=%b "$commit" | sed '/^[[:space:]]*$/d')
    # Characters, not bytes: a subject may hold non-ASCII letters.
    length=$(printf '%s' "$subject" | LC_ALL=C.UTF-8 wc -m)
    if [ "$length" -gt 72 ]; then
        echo "error: commit ${commit:0:7}: its subject has $length characters, more than 72: $subject" >&2
        failed=1
    fi
    if [ -z "$body" ]; then
        echo "error: commit ${commit:0:7} has no body saying why: $subject" >&2
        failed=1
    fi
done < <(git rev-list --no-merges "$base..HEAD")
[ "$failed" -eq 0 ] || exit 1
echo "commit messages: $count commits since ${base:0:7}, each with a subject of at most 72 characters and a body"

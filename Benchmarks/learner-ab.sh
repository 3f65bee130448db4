#!/usr/bin/env bash
# The learner before and after a change, in one run: this tree's `g2048` against another build of it (the
# baseline), for speed and for sameness.
#
#     Benchmarks/learner-ab.sh --baseline PATH [--seconds N] [--rounds N] [--games N] [--flags "train flags"]
#
# Make the baseline from the commit before the change, e.g.
#     git worktree add /tmp/before HEAD~1 && (cd /tmp/before && swift build -c release --product g2048)
#     Benchmarks/learner-ab.sh --baseline /tmp/before/.build/release/g2048
#
# Run from the repository root. It builds this tree's release `g2048`, then:
#   1. speed: each round trains both builds at the same time for --seconds (default 12), one pinned to each core
#      (taskset), then again with the cores swapped; a last pair runs the baseline against itself, which shows
#      the noise of the machine. Moves per second come from each run's learning curve.
#   2. sameness: both builds train --games games (default 3000) with the same flags and seed; the weights must be
#      byte-identical (the header, which holds the training time, and the checksum over it are not compared), and
#      a greedy evaluation of both files must print the same mean score.
# --flags (default "--optimistic 0 --alpha 0.1 --lanes 2") are `g2048 train` flags given to both; every run has
# --threads 1 --seed 1. Exits 1 when the weights or the scores differ.
set -euo pipefail

baseline="" seconds=12 rounds=2 games=3000 flags="--optimistic 0 --alpha 0.1 --lanes 2"
count() { [[ "${2-}" =~ ^[1-9][0-9]{0,6}$ ]] || { echo "error: $1 needs a whole number from 1 to 9999999, got '${2-}'" >&2; exit 64; }; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --baseline) [[ $# -ge 2 ]] || { echo "error: --baseline needs the path of a g2048 binary" >&2; exit 64; }; baseline="$2"; shift 2 ;;
        --seconds) count "$1" "${2-}"; seconds="$2"; shift 2 ;;
        --rounds) count "$1" "${2-}"; rounds="$2"; shift 2 ;;
        --games) count "$1" "${2-}"; games="$2"; shift 2 ;;
        --flags) [[ $# -ge 2 ]] || { echo "error: --flags needs the train flags in one argument" >&2; exit 64; }; flags="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1' (expected --baseline, --seconds, --rounds, --games or --flags)" >&2; exit 64 ;;
    esac
done
[[ -n "$baseline" ]] || { echo "error: --baseline PATH is required (a g2048 built from the commit before the change)" >&2; exit 64; }
[[ -x "$baseline" && -f "$baseline" ]] || { echo "error: --baseline $baseline is not an executable file" >&2; exit 64; }
[[ -f Package.swift ]] || { echo "error: run from the repository root (no Package.swift here)" >&2; exit 64; }
pin0=() pin1=()
if command -v taskset >/dev/null && [[ $(nproc) -ge 2 ]]; then pin0=(taskset -c 0) pin1=(taskset -c 1); fi

swift build -c release --product g2048 >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$(swift build -c release --show-bin-path)/g2048" "$work/after"
cp "$baseline" "$work/before"

# Moves per second of a learning curve: moves / elapsed seconds of its last row.
rate() { awk -F, 'NR > 1 { m = $2; t = $3 } END { if (t > 0) printf "%.3f", m / t / 1e6; else print 0 }' "$1"; }
# Trains build $1 on core 0 and build $2 on core 1 at the same time; prints both rates.
pair() {
    # shellcheck disable=SC2086 # the flags are words on purpose
    "${pin0[@]}" "$work/$1" train $flags --threads 1 --seed 1 --seconds "$seconds" --metrics-every 200 --force \
        --out "$work/w0.bin" --metrics "$work/c0.csv" >/dev/null 2>&1 &
    local first=$!
    # shellcheck disable=SC2086
    "${pin1[@]}" "$work/$2" train $flags --threads 1 --seed 1 --seconds "$seconds" --metrics-every 200 --force \
        --out "$work/w1.bin" --metrics "$work/c1.csv" >/dev/null 2>&1
    wait "$first"
    printf '%-8s %s M moves/s (core 0)   %-8s %s M moves/s (core 1)\n' "$1" "$(rate "$work/c0.csv")" "$2" "$(rate "$work/c1.csv")"
}

echo "== speed: train $flags --threads 1, ${seconds} s, both at once, cores swapped"
for _ in $(seq "$rounds"); do
    pair before after
    pair after before
done
echo "-- noise: the baseline against itself"
pair before before

echo "== sameness: $games games each, then greedy evaluation of both files"
for build in before after; do
    # shellcheck disable=SC2086
    "$work/$build" train $flags --threads 1 --seed 1 --games "$games" --force --out "$work/$build.bin" >/dev/null 2>&1 &
done
wait
size=$(stat -c %s "$work/after.bin")
header=$((16 + $(od -An -t u4 -j 12 -N 4 "$work/after.bin" | tr -d ' ')))
failed=0
if [[ $size -ne $(stat -c %s "$work/before.bin") ]]; then
    echo "error: the weights files differ in size" >&2; failed=1
elif ! cmp -s -i "$header" -n "$((size - header - 8))" "$work/before.bin" "$work/after.bin"; then
    echo "error: the weights differ (compared bytes $header to $((size - 8)))" >&2; failed=1
else
    echo "weights: identical ($((size - header - 8)) bytes after the $header-byte header)"
fi
for build in before after; do
    G2048_PROGRESS=off "$work/$build" eval --weights "$work/$build.bin" --games 1000 --seed 2 --threads 1 --downgrade off \
        2>/dev/null | awk '/^mean score/ { print $3 }' >"$work/$build.mean"
done
if cmp -s "$work/before.mean" "$work/after.mean"; then
    echo "greedy evaluation: the same mean score, $(cat "$work/after.mean")"
else
    echo "error: greedy evaluation differs: before $(cat "$work/before.mean"), after $(cat "$work/after.mean")" >&2; failed=1
fi
exit "$failed"

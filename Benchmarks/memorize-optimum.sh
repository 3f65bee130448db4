#!/usr/bin/env bash
# The perfect-memory player of Memorize against the exact expectations, for n = 2 ... 32 pairs: the table of
# docs/MEMORIZE.md.
#
#     Benchmarks/memorize-optimum.sh [--games N] [--from N] [--to N]
#
# Run from the repository root. For each n, `g2048 eval --game memorize --agent perfect` plays N games
# (default 100 000) on a row of 2n cards and reports the mean number of moves with its standard error,
# beside the exact expectation of the perfect-memory rule and of optimal play (dynamic programming over the
# cards unseen and known) and Velleman & Warrington's asymptotic formula. Printed as a Markdown table, with
# the distance of the measurement from the exact value in standard errors.
set -euo pipefail
games=100000 from=2 to=32
while [ $# -gt 0 ]; do
    case $1 in
        --games) games=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        --to) to=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
swift build -c release --product g2048 >&2
g2048=$(swift build -c release --show-bin-path)/g2048
echo "| pairs | perfect memory, measured | exact | (measured − exact) / SE | optimal play, exact | formula |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in $(seq "$from" "$to"); do
    "$g2048" eval --game memorize --agent perfect --rows 1 --cols $((2 * n)) --games "$games" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
z = (r["mean_moves"] - r["exact_moves"]) / r["moves_standard_error"]
print("| %d | %.4f ± %.4f | %.4f | %+.2f | %.4f | %.4f |" % (
    r["pairs"], r["mean_moves"], r["moves_standard_error"], r["exact_moves"], z, r["optimal_moves"], r["asymptotic_moves"]))'
done

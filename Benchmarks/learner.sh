#!/usr/bin/env bash
# Side-by-side speed of the n-tuple learner: `g2048 train` and TDL2048 (moporgic/TDL2048) at the same
# time, one per core, for the same seconds; then greedy evaluation of both, one thread each.
#
#     Benchmarks/learner.sh [--seconds N] [--eval-games N] [--train-games N]
#     Benchmarks/learner.sh --strength N [--flags "g2048 train flags"] [--eval-games N]
#
# Run from the repository root. Both learners play plain TD(0), α = 0.1, on the 4 × 6-tuple network,
# one thread each (g2048's plays two games at once, interleaved: --lanes 2, its default on 4x4), pinned
# with taskset (g2048 on CPU 0, TDL2048 on CPU 1). TDL2048 is optional: the
# script looks for a build at ../shared/peers/tdl2048/tdl2048 (override with TDL2048=path), runs it
# from where it is, and skips it with a note when it is absent.
#
# Phases (each pair runs at the same time, one learner per core):
#   1. training for --seconds (default 60): moves per wall second of each, and the ratio;
#   2. training for --train-games thousand games (default 20), saving the weights: TDL2048 saves only
#      when it finishes, so the evaluation needs a run of fixed length;
#   3. greedy evaluation of those weights over --eval-games thousand games (default 10); the one done first
#      evaluates again, unmeasured, until the other is done, so that neither runs alone for part of its run.
#
# With --strength N the script compares strength instead: both learn for N seconds at the same time (g2048
# with --flags, default the best single-thread flags the README gives; TDL2048 plain TD(0) α 0.1), then both
# networks are evaluated greedily over --eval-games thousand games, one thread each. TDL2048 saves its
# weights only when a run completes, so it trains in runs of 5 000 games, each loading and saving the
# weights, until the time of its completed blocks adds up to N seconds (the loading and saving is not
# counted: it gets at least N seconds of learning). Printed: each learner's games, the mean score of its
# last 1000 games, and its greedy evaluation. Both evaluations are plain greedy: g2048 eval runs with
# --downgrade off, as TDL2048's -e has no tile-downgrading (a weights file's recorded tile would otherwise
# be used).
#
# Moves per wall second over the run's complete 1000-game blocks, for both: g2048 train's learning
# curve (--metrics, a row every 1000 games) gives the moves and seconds at the last block; TDL2048
# prints each block's milliseconds and moves per second (`ops`), whose time-weighted mean is taken.
set -euo pipefail

seconds=60
train_games=20
eval_games=10
strength=0
flags="--learning otd+tc"
# A positive whole number of at most six digits for flag $1, or exit 64 naming the flag.
count() { [[ "${2-}" =~ ^[1-9][0-9]{0,5}$ ]] || { echo "error: $1 needs a whole number from 1 to 999999, got '${2-}'" >&2; exit 64; }; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) count "$1" "${2-}"; seconds="$2"; shift 2 ;;
        --train-games) count "$1" "${2-}"; train_games="$2"; shift 2 ;;
        --eval-games) count "$1" "${2-}"; eval_games="$2"; shift 2 ;;
        --strength) count "$1" "${2-}"; strength="$2"; shift 2 ;;
        --flags) [[ $# -ge 2 ]] || { echo "error: --flags needs the g2048 train flags in one argument" >&2; exit 64; }; flags="$2"; shift 2 ;;
        -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1' (expected --seconds, --train-games, --eval-games, --strength or --flags)" >&2; exit 64 ;;
    esac
done
[[ -f Package.swift ]] || { echo "error: run from the repository root (no Package.swift here)" >&2; exit 64; }

tdl="${TDL2048:-../shared/peers/tdl2048/tdl2048}"
have_tdl=1
[[ -x "$tdl" ]] || { have_tdl=0; echo "note: no TDL2048 at $tdl: measuring g2048 alone"; }
pin0=() pin1=()
if command -v taskset >/dev/null && [[ $(nproc) -ge 2 ]]; then pin0=(taskset -c 0) pin1=(taskset -c 1); fi

swift build -c release --product g2048 >&2
g2048="$(swift build -c release --show-bin-path)/g2048"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Moves per second of a TDL2048 log: Σ ops·ms / Σ ms over its 1000-game blocks.
tdl_rate() { awk '/^[0-9]+\/[0-9]+ [0-9]+ms [0-9.]+ops/ { ms = $2 + 0; ops = $3 + 0; t += ms; m += ops * ms }
                 END { if (t > 0) printf "%.0f\n", m / t; else print 0 }' "$1"; }
# Moves per second of g2048 train's learning curve: moves / elapsed_seconds of its last row.
ours_train_rate() { awk -F, 'NR > 1 { m = $2; t = $3 } END { if (t > 0) printf "%.0f\n", m / t; else print 0 }' "$1"; }
ours_eval_rate() { awk '/^moves\/s/ { print $2 }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "n/a" }'; }
millions() { awk -v x="$1" 'BEGIN { printf "%.2f M", x / 1e6 }'; }
ours_train_cmd=("${pin0[@]}" "$g2048" train --optimistic 0 --alpha 0.1 --threads 1 --lanes 2 --seed 1 --force)
# TDL2048 runs from its own folder (never copied); "$@" may start with a `timeout …` prefix.
run_tdl() { (cd "$(dirname "$tdl")" && "$@"); }
tdl_args=(-n 4x6patt -a 0.1)
# Greedy evaluation of g2048 weights $1 and TDL2048 weights $2 at the same time, one core each, into
# ours-eval.log and tdl-eval.log. Each evaluation is measured once, and each learner then evaluates again
# (output discarded) until the other has finished its measured one: the two share the last-level cache and
# the memory, and the one that finished first would otherwise leave the other a machine to itself, a faster
# one, for the rest of its run.
evaluate_both() {
    local flags="$work/finished"
    rm -rf "$flags" && mkdir "$flags"
    ours_eval_once() {
        "${pin0[@]}" "$g2048" eval --weights "$1" --games "$((eval_games * 1000))" --threads 1 --seed 2 --downgrade off 2>/dev/null
    }
    tdl_eval_once() { run_tdl "${pin1[@]}" "./$(basename "$tdl")" -n 4x6patt -i "$1" -e "$eval_games" -s 2 2>&1; }
    {
        ours_eval_once "$1" >"$work/ours-eval.log"
        touch "$flags/ours"
        if [[ $have_tdl == 1 ]]; then while [[ ! -e "$flags/tdl" ]]; do ours_eval_once "$1" >/dev/null; done; fi
    } &
    local ours=$!
    if [[ $have_tdl == 1 ]]; then
        tdl_eval_once "$2" >"$work/tdl-eval.log"
        touch "$flags/tdl"
        while [[ ! -e "$flags/ours" ]]; do tdl_eval_once "$2" >/dev/null; done
    fi
    wait "$ours"
}
# The mean scores of the two evaluation logs.
ours_eval_mean() { awk '/^mean score/ { print $3 }' "$work/ours-eval.log"; }
tdl_eval_mean() { awk '/^total:/ { sub("avg=", "", $2); a = $2 } END { print a }' "$work/tdl-eval.log"; }

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
if [[ $strength -gt 0 ]]; then
    echo "== strength: ${strength} s of learning each, at the same time; g2048 train ${flags} =="
    # shellcheck disable=SC2086 # the flags are words on purpose
    "${pin0[@]}" "$g2048" train $flags --threads 1 --seed 1 --seconds "$strength" --force \
        --out "$work/strength.bin" --metrics "$work/strength.csv" >"$work/strength.log" 2>&1 &
    ours=$!
    if [[ $have_tdl == 1 ]]; then
        # Runs of 5 000 games until the blocks' own milliseconds add up to the time given.
        tdl_ms=0 run=0
        : >"$work/tdl-strength.log"
        while [[ $tdl_ms -lt $((strength * 1000)) ]]; do
            run=$((run + 1))
            input=(); [[ $run -gt 1 ]] && input=(-i "$work/tdl-strength.w")
            run_tdl "${pin1[@]}" "./$(basename "$tdl")" "${tdl_args[@]}" -t 5 -s "$run" "${input[@]}" -o "$work/tdl-strength.w" \
                >>"$work/tdl-strength.log" 2>&1
            tdl_ms=$(awk '/^[0-9]+\/[0-9]+ [0-9]+ms/ { t += $2 + 0 } END { printf "%d\n", t }' "$work/tdl-strength.log")
        done
    fi
    wait "$ours" || { echo "error: g2048 train failed:" >&2; tail -5 "$work/strength.log" >&2; exit 1; }
    ours_games=$(awk -F, 'NR > 1 { g = $1 } END { print g + 0 }' "$work/strength.csv")
    ours_last=$(awk -F, 'NR > 1 { m = $5 } END { printf "%.0f\n", m }' "$work/strength.csv")
    ours_secs=$(awk -F, 'NR > 1 { t = $3 } END { printf "%.0f\n", t }' "$work/strength.csv")
    echo "g2048 train   ${ours_games} games in ${ours_secs} s; last 1000 games: mean ${ours_last}"
    if [[ $have_tdl == 1 ]]; then
        tdl_games=$(grep -cE '^[0-9]+/[0-9]+ [0-9]+ms' "$work/tdl-strength.log")
        tdl_last=$(awk '/^local:/ { sub("avg=", "", $2); a = $2 } END { print a }' "$work/tdl-strength.log")
        echo "TDL2048       ${tdl_games}000 games in $((tdl_ms / 1000)) s of blocks ($run runs of 5000); last 1000 games: mean ${tdl_last}"
        echo "ratio         $(ratio "$ours_last" "$tdl_last") (last 1000 games, g2048 / TDL2048)"
    fi
    echo "== greedy evaluation of both networks, ${eval_games} 000 games each, one thread, at the same time =="
    evaluate_both "$work/strength.bin" "$work/tdl-strength.w"
    ours_mean=$(ours_eval_mean)
    echo "g2048 eval    mean ${ours_mean}; $(grep -E '^reached (8192|16384|32768) ' "$work/ours-eval.log" | sed 's/  */ /g' | paste -sd ';' - | sed 's/;/; /g')"
    if [[ $have_tdl == 1 ]]; then
        tdl_mean=$(tdl_eval_mean)
        echo "TDL2048 -e    mean ${tdl_mean}"
        echo "ratio         $(ratio "$ours_mean" "$tdl_mean") (greedy evaluation, g2048 / TDL2048)"
    fi
    exit 0
fi
echo "== training, ${seconds} s each, at the same time =="
# On a busy machine the wall figures depend on what else runs; GNU time, when present, gives each
# process's CPU use, and the rate per CPU second (wall rate / CPU share) is printed beside them.
timed() { if [[ -x /usr/bin/time ]]; then /usr/bin/time -f "%e %U %S" -o "$1" "${@:2}"; else "${@:2}"; fi; }
per_cpu() { [[ -s "$2" ]] && awk -v r="$1" '{ if ($2 + $3 > 0) printf ", %.2f M per CPU second (%.0f %% of a CPU)", r * $1 / ($2 + $3) / 1e6, 100 * ($2 + $3) / $1 }' "$2"; }
timed "$work/ours-train.time" "${ours_train_cmd[@]}" --seconds "$seconds" --out "$work/timed.bin" --metrics "$work/timed.csv" >"$work/ours-train.log" 2>/dev/null &
ours=$!
if [[ $have_tdl == 1 ]]; then
    # It saves nothing when cut off; the blocks it finished are in the log.
    run_tdl timed "$work/tdl-train.time" timeout "$seconds" "${pin1[@]}" "./$(basename "$tdl")" "${tdl_args[@]}" -t 100000 -s 1 \
        >"$work/tdl-train.log" 2>&1 || true
fi
wait "$ours"
ours_train=$(ours_train_rate "$work/timed.csv")
echo "g2048 train   $(millions "$ours_train") moves/s$(per_cpu "$ours_train" "$work/ours-train.time")"
if [[ $have_tdl == 1 ]]; then
    tdl_train=$(tdl_rate "$work/tdl-train.log")
    echo "TDL2048       $(millions "$tdl_train") moves/s$(per_cpu "$tdl_train" "$work/tdl-train.time")"
    echo "ratio         $(ratio "$ours_train" "$tdl_train") (g2048 / TDL2048)"
fi

echo "== training ${train_games} 000 games each for the evaluation, at the same time =="
"${ours_train_cmd[@]}" --games "$((train_games * 1000))" --out "$work/ours.bin" --metrics "$work/fixed.csv" >/dev/null 2>&1 &
ours=$!
if [[ $have_tdl == 1 ]]; then run_tdl "${pin1[@]}" "./$(basename "$tdl")" "${tdl_args[@]}" -t "$train_games" -s 1 -o "$work/tdl.w" >"$work/tdl-fixed.log" 2>&1; fi
wait "$ours"
echo "g2048 train   $(millions "$(ours_train_rate "$work/fixed.csv")") moves/s"
[[ $have_tdl == 1 ]] && echo "TDL2048       $(millions "$(tdl_rate "$work/tdl-fixed.log")") moves/s"

echo "== greedy evaluation, ${eval_games} 000 games each, one thread, at the same time =="
evaluate_both "$work/ours.bin" "$work/tdl.w"
ours_eval=$(ours_eval_rate "$work/ours-eval.log")
echo "g2048 eval    $(millions "$ours_eval") moves/s   (mean score $(ours_eval_mean))"
if [[ $have_tdl == 1 ]]; then
    tdl_eval=$(tdl_rate "$work/tdl-eval.log")
    echo "TDL2048 -e    $(millions "$tdl_eval") moves/s   (mean score $(tdl_eval_mean))"
    echo "ratio         $(ratio "$ours_eval" "$tdl_eval") (g2048 / TDL2048)"
fi

#!/usr/bin/env bash
# A hot-path change, before and after, in one run: the engine (`g2048 bench`), the in-process vector through Python
# (`make_vec(1024)`) and the learner (`g2048 train` and greedy `g2048 eval`), each timed and counted.
#
#     Benchmarks/ab.sh --base REV [--rounds N] [--seconds S] [--only engine|python|learner]
#
# REV is the commit before the change (HEAD~1, a hash, a branch); it is built in a worktree of its own beside this
# tree's release build. For each part:
#   time          the builds alternate, each run a fresh process pinned to one core (taskset -c 1), --rounds times
#                 (default 3) for --seconds (default 2): the median rate per CPU second of each, and after/before.
#   instructions  the user-space instructions of a fixed amount of work, counted by Valgrind's cachegrind at two
#                 amounts: their difference over the work between is the cost of one step (or move), free of
#                 start-up and of whatever else the machine is doing (a 10 % change is 10 % here, where timings on
#                 a shared machine swing by 15 %). The learner's data cache misses (D1, last level) per move come
#                 from cachegrind's cache simulation of the machine's caches. Valgrind has no AVX-512: under it
#                 the vector's 4x4 lanes take the Swift stages, so its count is theirs, while its time is the
#                 kernel's where the processor has one (a branch-free kernel: its instructions are its length).
# The learner part also runs Benchmarks/learner-ab.sh: both builds trained at once, one a core, and the weights of
# the same seeds compared byte for byte. A base without `bench --steps` (before it existed) is timed but not counted.
# Needs valgrind (apt-get install valgrind) and, for the Python part, the repository's .venv (Tests/run-all.sh); each
# build runs with its own Python package.
set -euo pipefail

base="" rounds=3 seconds=2 only=""
count() { [[ "${2-}" =~ ^[1-9][0-9]{0,5}$ ]] || { echo "error: $1 needs a whole number from 1 to 999999, got '${2-}'" >&2; exit 64; }; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --base) [[ $# -ge 2 ]] || { echo "error: --base needs a commit" >&2; exit 64; }; base="$2"; shift 2 ;;
        --rounds) count "$1" "${2-}"; rounds="$2"; shift 2 ;;
        --seconds) count "$1" "${2-}"; seconds="$2"; shift 2 ;;
        --only)
            [[ "${2-}" =~ ^(engine|python|learner)$ ]] || { echo "error: --only takes engine, python or learner, got '${2-}'" >&2; exit 64; }
            only="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1' (expected --base, --rounds, --seconds or --only)" >&2; exit 64 ;;
    esac
done
[[ -n "$base" ]] || { echo "error: --base REV is required (the commit before the change)" >&2; exit 64; }
[[ -f Package.swift ]] || { echo "error: run from the repository root (no Package.swift here)" >&2; exit 64; }
git rev-parse --verify --quiet "$base^{commit}" >/dev/null || { echo "error: --base $base names no commit" >&2; exit 64; }
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (apt-get install valgrind)" >&2; exit 69; }
python=.venv/bin/python
pin=()
if command -v taskset >/dev/null && [[ $(nproc) -ge 2 ]]; then pin=(taskset -c 1); fi
part() { [[ -z "$only" || "$only" == "$1" ]]; }

work="$(mktemp -d)"
cleanup() { git worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

# Each build's g2048 and libgym2048.so in $work/NAME; both also without their debug information (clang's DWARF 5,
# which Valgrind 3.19 cannot read), for the counts.
build() {
    local name="$1" source="$2"
    (cd "$source" && swift build -c release --product g2048 >&2 && swift build -c release --product gym2048 >&2)
    mkdir -p "$work/$name"
    local bin; bin="$(cd "$source" && swift build -c release --show-bin-path)"
    cp "$bin/g2048" "$bin/libgym2048.so" "$work/$name/"
    strip --strip-debug -o "$work/$name/libgym2048-nodebug.so" "$work/$name/libgym2048.so"
    strip --strip-debug -o "$work/$name/g2048-nodebug" "$work/$name/g2048"
}
echo "== building HEAD ($(git rev-parse --short HEAD)) and $base ($(git rev-parse --short "$base"))" >&2
build after .
git worktree add --detach "$work/base-src" "$base" >/dev/null 2>&1
build before "$work/base-src"
git worktree remove --force "$work/base-src"

cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
caches="$(for d in /sys/devices/system/cpu/cpu0/cache/index*; do printf 'L%s%s %s, ' "$(cat "$d/level")" \
    "$(case "$(cat "$d/type")" in Data) echo d ;; Instruction) echo i ;; esac)" "$(cat "$d/size")"; done)"
echo "machine: $cpu, $(nproc) CPUs, caches ${caches%, }; $(date -u +%Y-%m-%d); after = HEAD $(git rev-parse --short HEAD), before = $base"
# Cachegrind's simulated caches: this machine's first-level data cache and last level, read from Linux (its own
# detection can be wrong in a virtual machine: 512 MiB of last level on this one).
caches_flags=()
cache_of() { # level type -> size,associativity,line for --D1/--LL
    for d in /sys/devices/system/cpu/cpu0/cache/index*; do
        if [[ "$(cat "$d/level")" == "$1" && "$(cat "$d/type")" == "$2" ]]; then
            echo "$(($(tr -dc 0-9 <"$d/size") * 1024)),$(cat "$d/ways_of_associativity"),$(cat "$d/coherency_line_size")"
        fi
    done
}
d1="$(cache_of 1 Data)" ll="$(cache_of 3 Unified)"
[[ -n "$d1" ]] && caches_flags+=("--D1=$d1")
[[ -n "$ll" ]] && caches_flags+=("--LL=$ll")

# The median of numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
# User-space instructions of a command, counted by cachegrind (its extra arguments first).
instructions() {
    local out="$work/cg.out"
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" "$@" >/dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$out"
}
# Two counts of the same command with work $1 and $2 (the placeholder WORK in the command): per unit of work.
per_unit() {
    local small="$1" large="$2"; shift 2
    local a b
    a=$(instructions "${@//WORK/$small}")
    b=$(instructions "${@//WORK/$large}")
    awk -v a="$a" -v b="$b" -v n=$((large - small)) 'BEGIN { printf "%.1f", (b - a) / n }'
}
# Prints a row: what, before, after, after/before (the header row: its titles).
row() { printf '%-44s %14s %14s %8s\n' "$1" "$2" "$3" "$( [[ "$2" == before ]] && echo ratio || ratio "$3" "$2")"; }

if part engine; then
    echo "== engine: g2048 bench --rows 4, a random legal agent (steps per CPU second; instructions per step)"
    row "" before after
    for kind in single vector; do
        for build in before after; do : >"$work/$build.$kind"; done
        for round in $(seq "$rounds"); do
            order=(before after); [[ $((round % 2)) -eq 0 ]] && order=(after before)
            for build in "${order[@]}"; do
                "${pin[@]}" "$work/$build/g2048" bench --rows 4 --envs 1024 --seconds "$seconds" --json 2>/dev/null |
                    "$python" -c "import json, sys; print([r for r in json.load(sys.stdin) if (r['envs'] == 1) == ('$kind' == 'single')][0]['steps_per_cpu_second'])" \
                    >>"$work/$build.$kind"
            done
        done
        row "$kind: steps per CPU second" "$(median <"$work/before.$kind")" "$(median <"$work/after.$kind")"
        counts=()
        for build in before after; do
            if "$work/$build/g2048" bench --help 2>/dev/null | grep -q -- "--only"; then
                counts+=("$(per_unit 1048576 3145728 "$work/$build/g2048-nodebug" bench --rows 4 --envs 1024 --only "$kind" --steps WORK)")
            else
                counts+=("-")
            fi
        done
        row "$kind: instructions per step" "${counts[0]}" "${counts[1]}"
    done
fi

if part python; then
    echo "== in-process vector: gymnasium.make_vec(\"Gym2048-v0\", num_envs=1024), uniform actions (env-steps per CPU second; instructions per env-step)"
    cat >"$work/vector.py" <<'EOF'
import sys, time
import gymnasium, numpy as np
import gym2048  # noqa: F401 (registers the environment)
steps, seconds = int(sys.argv[1]), float(sys.argv[2])
envs = gymnasium.make_vec("Gym2048-v0", num_envs=1024)
envs.reset(seed=1)
actions = np.random.default_rng(1).integers(0, 4, size=(64, 1024)).astype(np.int64)
start, done = time.process_time(), 0
while (done < steps) if steps else (time.process_time() - start < seconds):
    envs.step(actions[done & 63])
    done += 1
print(round(done * 1024 / (time.process_time() - start)))
envs.close()
EOF
    row "" before after
    # Each build with its own Python package (the library's C ABI is the package's), one hash seed for both.
    declare -A package=([before]="$work/base-src/python" [after]="$PWD/python")
    for build in before after; do : >"$work/$build.python"; done
    for round in $(seq "$rounds"); do
        order=(before after); [[ $((round % 2)) -eq 0 ]] && order=(after before)
        for build in "${order[@]}"; do
            PYTHONPATH="${package[$build]}" G2048_LIB="$work/$build/libgym2048.so" "${pin[@]}" "$python" "$work/vector.py" 0 \
                "$seconds" >>"$work/$build.python"
        done
    done
    row "env-steps per CPU second" "$(median <"$work/before.python")" "$(median <"$work/after.python")"
    counts=()
    for build in before after; do
        # 4 000 steps between the two counts: Python's start-up alone varies by some 40 M instructions from run to
        # run, which over 400 steps was ±100 an env-step.
        counts+=("$(export PYTHONHASHSEED=0 PYTHONPATH="${package[$build]}" G2048_LIB="$work/$build/libgym2048-nodebug.so"
            per_unit 200 4200 "$python" "$work/vector.py" WORK 0 | awk '{ printf "%.1f", $1 / 1024 }')")
    done
    row "instructions per env-step" "${counts[0]}" "${counts[1]}"
fi

if part learner; then
    echo "== learner: g2048 train --rows 4 --threads 1 --seed 1 (instructions and cache misses per move), then greedy eval"
    row "" before after
    # Moves of a training run: the last row of its curve.
    train_moves() { awk -F, 'NR > 1 { m = $2 } END { print m }' "$1"; }
    declare -A per
    for build in before after; do
        b="$work/$build/g2048-nodebug"
        for games in 200 600; do
            valgrind --tool=cachegrind --cache-sim=yes "${caches_flags[@]}" --cachegrind-out-file="$work/train.$games" \
                "$b" train --rows 4 --threads 1 --seed 1 --games "$games" --metrics-every 100 --force \
                --out "$work/$build.$games.bin" --metrics "$work/$build.$games.csv" >/dev/null 2>&1
        done
        moves=$(($(train_moves "$work/$build.600.csv") - $(train_moves "$work/$build.200.csv")))
        # summary: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
        read -r i1 _ _ _ r1 l1 _ w1 lw1 < <(awk '/^summary:/ { $1 = ""; print }' "$work/train.200")
        read -r i2 _ _ _ r2 l2 _ w2 lw2 < <(awk '/^summary:/ { $1 = ""; print }' "$work/train.600")
        per[$build.ir]=$(awk -v a="$i1" -v b="$i2" -v n="$moves" 'BEGIN { printf "%.1f", (b - a) / n }')
        per[$build.d1]=$(awk -v a="$((r1 + w1))" -v b="$((r2 + w2))" -v n="$moves" 'BEGIN { printf "%.2f", (b - a) / n }')
        per[$build.ll]=$(awk -v a="$((l1 + lw1))" -v b="$((l2 + lw2))" -v n="$moves" 'BEGIN { printf "%.3f", (b - a) / n }')
        # The moves of an evaluation, from its report (a build from before the report gave them: none).
        eval_moves() { "$b" eval --weights "$work/$build.600.bin" --games "$1" --seed 2 --threads 1 --json 2>/dev/null |
            "$python" -c "import json, sys; print(json.load(sys.stdin).get('moves', ''))"; }
        m1=$(eval_moves 100) m2=$(eval_moves 300)
        per[$build.eval]="-"
        if [[ -n "$m1" && -n "$m2" ]]; then
            e1=$(instructions "$b" eval --weights "$work/$build.600.bin" --games 100 --seed 2 --threads 1)
            e2=$(instructions "$b" eval --weights "$work/$build.600.bin" --games 300 --seed 2 --threads 1)
            per[$build.eval]=$(awk -v a="$e1" -v b="$e2" -v n="$((m2 - m1))" 'BEGIN { printf "%.1f", (b - a) / n }')
        fi
    done
    row "train: instructions per move" "${per[before.ir]}" "${per[after.ir]}"
    row "train: D1 misses per move (simulated)" "${per[before.d1]}" "${per[after.d1]}"
    row "train: last-level misses per move (simulated)" "${per[before.ll]}" "${per[after.ll]}"
    row "greedy eval: instructions per move" "${per[before.eval]}" "${per[after.eval]}"
    echo "== learner: time and sameness (Benchmarks/learner-ab.sh)"
    bash Benchmarks/learner-ab.sh --baseline "$work/before/g2048" --seconds "$((seconds * 5))" --rounds "$rounds"
fi

#!/usr/bin/env bash
# The README's peer comparisons, rebuilt and rerun from a clone: gym2048's `make_vec` beside PufferLib's 2048
# environment from Python, and `g2048 train`/`eval` beside moporgic/TDL2048.
#
#     Benchmarks/peers.sh --tdl2048 PATH [--pufferlib SOURCE] [--envs 1024] [--rounds 3] [--seconds 3]
#                         [--learner-seconds 60] [--train-games 20] [--eval-games 10] [--only env|learner]
#
# Run from the repository root. What it fetches and builds, under .build/peers/ ($G2048_PEERS_CACHE when set),
# reused on the next run:
#   - PufferLib's source at commit $PUFFERLIB_COMMIT (below), as GitHub's archive of that commit, unless
#     --pufferlib names a PufferLib checkout, an unpacked archive or a .tar.gz of one. No PufferLib release on PyPI
#     has the 2048 environment (it came after 3.0.0), so its source comes from the repository:
#     https://github.com/PufferAI/PufferLib
#   - that environment's CPython extension, compiled alone with cc from pufferlib/ocean/g2048/binding.c against
#     numpy's headers; its drawing code calls raylib, which is not needed to step it, so a header of empty raylib
#     calls written here stands in (the benchmark never draws);
#   - a virtualenv with numpy, gymnasium and gym2048 (editable): .venv when it already has them (as
#     `bash Tests/run-all.sh` makes it), else .build/peers/venv; and the release builds of gym2048 and g2048.
# TDL2048 is not fetched: --tdl2048 names a built `tdl2048` or a checkout of https://github.com/moporgic/TDL2048
# to build with `make` (g++ needed). The learner phase is Benchmarks/learner.sh, run as it is.
#
# Printed: each phase's own output, then a summary of the ratios the README quotes (env-steps per CPU second of
# both and their ratio; training and evaluation moves per second of both and their ratios) with the commit, the
# date, the CPU model and caches (lscpu) and the command. About 3 minutes at the defaults on 2 cores once the
# release builds exist: half a minute for the environments, the rest for the learner.
set -euo pipefail

# PufferLib's commit whose 2048 environment the README's figures were measured against.
PUFFERLIB_COMMIT=2cf8e58961015f1e7337edc9ae52b340465fe0a9
TDL2048_URL=https://github.com/moporgic/TDL2048

command_line="Benchmarks/peers.sh $*"
tdl="" pufferlib="" only="" envs=1024 rounds=3 seconds=3 learner_seconds=60 train_games=20 eval_games=10
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
fail() { echo "error: $2" >&2; exit "$1"; }
# A positive whole number of at most six digits for flag $1, or exit 64 naming the flag.
count() { [[ "${2-}" =~ ^[1-9][0-9]{0,5}$ ]] || fail 64 "$1 needs a whole number from 1 to 999999, got '${2-}'"; }
where_tdl() {
    echo "TDL2048 is the C++ n-tuple learner the learner figures are measured against. Get it and build it:" >&2
    echo "    git clone $TDL2048_URL && make -C TDL2048" >&2
    echo "then pass --tdl2048 TDL2048 (the checkout, built with make if needed) or --tdl2048 TDL2048/tdl2048;" >&2
    echo "or measure the environments alone with --only env." >&2
}
while [[ $# -gt 0 ]]; do
    case "$1" in
        --tdl2048) [[ -n "${2-}" ]] || fail 64 "--tdl2048 needs a path"; tdl="$2"; shift 2 ;;
        --pufferlib) [[ -n "${2-}" ]] || fail 64 "--pufferlib needs a path"; pufferlib="$2"; shift 2 ;;
        --only) [[ "${2-}" == env || "${2-}" == learner ]] || fail 64 "--only takes env or learner, got '${2-}'"
            only="$2"; shift 2 ;;
        --envs) count "$1" "${2-}"; envs="$2"; shift 2 ;;
        --rounds) count "$1" "${2-}"; rounds="$2"; shift 2 ;;
        --seconds) count "$1" "${2-}"; seconds="$2"; shift 2 ;;
        --learner-seconds) count "$1" "${2-}"; learner_seconds="$2"; shift 2 ;;
        --train-games) count "$1" "${2-}"; train_games="$2"; shift 2 ;;
        --eval-games) count "$1" "${2-}"; eval_games="$2"; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) fail 64 "unknown argument '$1' (see --help)" ;;
    esac
done
[[ -f Package.swift ]] || fail 64 "run from the repository root (no Package.swift here)"

# TDL2048 first: a missing peer says so before anything is downloaded or built.
if [[ $only != env ]]; then
    [[ -n $tdl ]] || { echo "error: no --tdl2048 given" >&2; where_tdl; exit 64; }
    [[ -e $tdl ]] || { echo "error: no TDL2048 at $tdl" >&2; where_tdl; exit 66; }
    if [[ -d $tdl ]]; then
        [[ -x $tdl/tdl2048 ]] || make -C "$tdl" >&2 || { echo "error: make failed in $tdl" >&2; where_tdl; exit 69; }
        tdl="$tdl/tdl2048"
    fi
    [[ -x $tdl ]] || { echo "error: $tdl is not an executable TDL2048 build" >&2; where_tdl; exit 66; }
    tdl="$(cd "$(dirname "$tdl")" && pwd)/$(basename "$tdl")"
fi

cache="${G2048_PEERS_CACHE:-.build/peers}"
mkdir -p "$cache"
log="$cache/last-run.txt"
: >"$log"
# Each phase's output goes to the terminal and to $log, which the summary reads.
shown() { "$@" 2>&1 | tee -a "$log"; }

# The folder of a PufferLib source tree: --pufferlib's (unpacked into $cache when it is an archive), else the
# pinned commit's archive, downloaded once.
pufferlib_tree() {
    local archive="$pufferlib"
    if [[ -d $archive ]]; then echo "$archive"; return; fi
    if [[ -z $archive ]]; then
        archive="$cache/PufferLib-$PUFFERLIB_COMMIT.tar.gz"
        if [[ ! -s $archive ]]; then
            echo "downloading PufferLib $PUFFERLIB_COMMIT ..." >&2
            curl -fsSL -o "$archive.part" "https://github.com/PufferAI/PufferLib/archive/$PUFFERLIB_COMMIT.tar.gz" || {
                rm -f "$archive.part"
                echo "error: could not download PufferLib's source. Clone https://github.com/PufferAI/PufferLib," >&2
                echo "check out $PUFFERLIB_COMMIT and pass --pufferlib with the checkout's path." >&2
                exit 69
            }
            mv "$archive.part" "$archive"
        fi
    fi
    [[ -f $archive ]] || fail 66 "no PufferLib source at $archive"
    local tree="$cache/pufferlib-src"
    rm -rf "$tree" && mkdir -p "$tree"
    tar -xzf "$archive" -C "$tree" --strip-components=1
    echo "$tree"
}

# A Python with numpy, gymnasium and gym2048: .venv's when it has them, else .build/peers/venv, made once.
python_env() {
    local python=.venv/bin/python
    if [[ -x $python ]] && "$python" -c 'import numpy, gymnasium, gym2048' 2>/dev/null; then echo "$python"; return; fi
    python="$cache/venv/bin/python"
    if ! { [[ -x $python ]] && "$python" -c 'import numpy, gymnasium, gym2048' 2>/dev/null; }; then
        python3 -m venv "$cache/venv" >&2
        "$python" -m pip install --quiet --disable-pip-version-check numpy gymnasium -e ./python >&2
    fi
    echo "$python"
}

env_phase() {
    local tree python built
    tree="$(pufferlib_tree)"
    local source="$tree/pufferlib/ocean/g2048/binding.c"
    [[ -f $source ]] || fail 66 "$tree has no pufferlib/ocean/g2048/binding.c: not a PufferLib source with the 2048 environment"
    python="$(python_env)"
    swift build -c release --product gym2048 >&2
    built="$cache/pufferlib-g2048"
    mkdir -p "$built/stub"
    # Empty raylib calls: the environment's drawing code must compile, but the benchmark never draws. Macros take
    # any arguments, so the stub does not depend on which raylib calls a PufferLib version makes.
    cat >"$built/stub/raylib.h" <<'EOF'
#pragma once
#include <stdbool.h>
typedef struct Color { unsigned char r, g, b, a; } Color;
#define KEY_ESCAPE 256
#define RAYWHITE ((Color){245, 245, 245, 255})
#define LIGHTGRAY ((Color){200, 200, 200, 255})
#define DARKGRAY ((Color){80, 80, 80, 255})
#define BLACK ((Color){0, 0, 0, 255})
#define InitWindow(...) ((void)0)
#define SetTargetFPS(...) ((void)0)
#define IsWindowReady(...) false
#define IsKeyDown(...) false
#define CloseWindow(...) ((void)0)
#define BeginDrawing(...) ((void)0)
#define EndDrawing(...) ((void)0)
#define ClearBackground(...) ((void)0)
#define DrawRectangle(...) ((void)0)
#define DrawText(...) ((void)0)
#define TextFormat(...) ""
EOF
    local includes suffix
    includes="$("$python" -c 'import sysconfig, numpy; print(sysconfig.get_paths()["include"], numpy.get_include())')"
    suffix="$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
    # As PufferLib's own build compiles its environments for speed (-O3, -fwrapv, no asserts); -w, as its
    # warnings are not ours to fix.
    # shellcheck disable=SC2046 # two include folders, split on purpose
    cc -O3 -fwrapv -DNDEBUG -fPIC -shared -w -I"$built/stub" $(printf -- '-I%s ' $includes) \
        "$source" -o "$built/binding$suffix" -lm
    shown echo "== from Python: make_vec($envs) beside PufferLib's 2048 ($PUFFERLIB_COMMIT, built in $built) =="
    shown "$python" Benchmarks/peers_env.py --binding "$built" --envs "$envs" --rounds "$rounds" --seconds "$seconds"
}

learner_phase() {
    echo "== the n-tuple learner beside TDL2048 ($tdl), Benchmarks/learner.sh =="
    TDL2048="$tdl" shown bash Benchmarks/learner.sh --seconds "$learner_seconds" --train-games "$train_games" \
        --eval-games "$eval_games"
}

if [[ $only != learner ]]; then env_phase; fi
if [[ $only != env ]]; then learner_phase; fi

# The summary: the lines of $log that carry the ratios, by the words each phase prints.
pick() { awk -v section="$1" -v who="$2" '/^== / { in_section = index($0, section) > 0 }
                                          in_section && index($0, who) == 1 { print; exit }' "$log"; }
echo
echo "== summary =="
echo "commit   $(git describe --always --dirty), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "CPU      $(lscpu | awk -F: '/^Model name/ { gsub(/^ +/, "", $2); print $2 }'), $(nproc) CPUs; $(lscpu | awk -F: '/^L[23] cache/ { gsub(/^ +/, "", $2); caches = caches sep $1 " " $2; sep = "; " } END { print caches }')"
echo "command  $command_line"
if [[ $only != learner ]]; then
    echo "from Python, $envs environments, env-steps per second:"
    for who in "PufferLib " "gym2048 " "ratio "; do pick "== from Python" "$who"; done | sed 's/^/    /'
fi
if [[ $only != env ]]; then
    echo "learner, moves per wall second (and per CPU second where printed):"
    for section in "== training, " "== greedy evaluation, "; do
        for who in "g2048 " "TDL2048 " "ratio "; do pick "$section" "$who"; done
    done | sed 's/^/    /'
fi

#!/usr/bin/env bash
# Builds the documentation of every module with the toolchain's own DocC, and fails on any DocC warning: a
# symbol link (``Name``) or an article link (<doc:NAME>) that does not resolve, or a parameter documented under
# a name the function does not have.
#
#   bash Scripts/build-docs.sh [output directory, default .build/documentation]
#
# Each module is converted twice. Once with its public symbols only, into <output>/<Module>.doccarchive: the
# documentation a user of the library reads, where a link to an internal symbol is broken. Once with every
# symbol, private ones included, only to check the links in every doc comment; that archive is thrown away.
# The modules that are not products (GymPlay, GymSystem) and the executable g2048 have no public
# symbols, so they only have the second pass.
#
# The articles are docs/*.md themselves: each catalogue (Sources/<Module>/<Module>.docc) links to them, so the
# files the README points to are the one source.
set -euo pipefail
cd "$(dirname "$0")/.."

output=${1:-.build/documentation}
libraries=(GymCore Game2048 Memorize GymJSON GymServer Game2048Network Game2048Search Game2048Solver Game2048Training)
# Modules that are not products (their API is `package`) and the executable: their links are checked, no archive kept.
internal=(GymGames GymPlay GymSystem g2048)

# The Swift driver leaves a TemporaryDirectory.* in $TMPDIR at every run; keep those in a folder removed at the end.
work=$(mktemp -d "${TMPDIR:-/tmp}/gym2048-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"

echo "== swift build (the modules the symbol graphs are read from: the build the tests run on, .build/testing)"
# Built as `swift test` builds it (`--list-tests` builds, then only lists), so that after Tests/run-all.sh nothing is
# rebuilt: `swift build` with the same flags plans a build of its own (148 s more in CI, from nothing).
flags=(-c release -Xswiftc -enable-testing --scratch-path .build/testing)
swift test "${flags[@]}" --list-tests >"$work/list-tests.log" 2>&1 || { cat "$work/list-tests.log" >&2; exit 1; }
bin=$(swift build "${flags[@]}" --show-bin-path)
modules=$bin/Modules
# The C targets' module maps, which SwiftPM generates: the learner's modules import CPrefetch, and Game2048 (so
# every module above it) CPackedLanes.
c_modules=(-Xcc "-fmodule-map-file=$bin/CPrefetch.build/module.modulemap" -Xcc "-fmodule-map-file=$bin/CPackedLanes.build/module.modulemap")

# convert MODULE LEVEL OUTPUT: extracts MODULE's symbols of LEVEL and up, and converts them with its catalogue.
convert() {
    local module=$1 level=$2 archive=$3
    local graphs="$work/symbols-$module-$level"
    mkdir -p "$graphs"
    swift-symbolgraph-extract -module-name "$module" -I "$modules" "${c_modules[@]}" -module-cache-path "$work/module-cache" \
        -minimum-access-level "$level" -output-dir "$graphs"
    if ! docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
        --output-dir "$archive" --warnings-as-errors >"$work/docc.log" 2>&1; then
        sed "s|$PWD/||g" "$work/docc.log" >&2
        echo "error: the documentation of $module ($level symbols) has the problems above" >&2
        return 1
    fi
}

failed=0
mkdir -p "$output"
for module in "${libraries[@]}"; do
    echo "== docc convert $module"
    rm -rf "$output/$module.doccarchive"
    convert "$module" public "$output/$module.doccarchive" || failed=1
    convert "$module" private "$work/check-$module.doccarchive" || failed=1
done
for module in "${internal[@]}"; do
    echo "== docc convert $module (links only)"
    convert "$module" private "$work/check-$module.doccarchive" || failed=1
done
if [ "$failed" -ne 0 ]; then exit 1; fi
echo "documentation: $output/<Module>.doccarchive"

#!/usr/bin/env bash
# Every test of the repository, as README.md gives it and CI runs it:
#   1. the Swift test suites (swift test, optimized, with testing enabled, in .build/testing),
#   2. the release build the examples use,
#   3. the documents (links, anchors, the README's quick start built and run from a folder not named Gym2048),
#   4. the Python package gym2048 (installed editable into a virtualenv, .venv, created on first run, with
#      pytest, moviepy for the video test, mypy, Ray for the trainer on Ray, and gymnasium-2048 for the benchmark; Debian's chromium for the
#      browser tests, installed when absent and root can): mypy --strict, then its tests and the Node.js example test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every temporary file of this run goes into one folder, removed at the end. The tests remove what they make,
# but the Swift driver leaves an empty TemporaryDirectory.* in $TMPDIR each time SwiftPM runs it
# (swiftlang/swift-driver#1720, #2049); this keeps them out of /tmp.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gym2048-run-all.XXXXXX")
# The room left on the disks of the clone and of the scratch folder: printed first, and again when the run fails,
# since a full disk fails it far from its cause (a wheel, a weights file, a build that cannot be written).
room() { df -Ph "$PWD" "$scratch" | awk 'NR > 1 { print "  " $6 ": " $4 " free of " $2 }' | sort -u; }
trap 'status=$?; if [ "$status" -ne 0 ]; then echo "room on the disks as the run stopped:" >&2; room >&2; fi
rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
echo "== room on the disks"
room

echo "== swift test (optimized, with testing enabled, built in .build/testing)"
# Optimized, as users run the engine: the suites take a quarter of a debug build's time for the same time to
# build, and what they test is what the optimizer made of the code. In a build folder of their own, so that the
# release build below (without -enable-testing) is not rebuilt each time.
# TMPDIR is a folder of its own, so that whatever a test leaves behind is seen: that fails the run. (SwiftPM
# keeps its *.lock files there, and, on a first build, its swift-generated-sources; the driver its
# TemporaryDirectory.*.)
mkdir "$scratch/swift-test"
TMPDIR="$scratch/swift-test" swift test -c release -Xswiftc -enable-testing --scratch-path .build/testing
left=$(find "$scratch/swift-test" -mindepth 1 -maxdepth 1 ! -name 'TemporaryDirectory.*' ! -name '*.lock' \
    ! -name 'swift-generated-sources')
if [ -n "$left" ]; then
    echo "error: the Swift tests left these temporary files behind:" >&2
    echo "$left" >&2
    exit 1
fi

echo "== swift build -c release (the binary the examples start, and libgym2048 they load)"
swift build -c release
swift build -c release --product gym2048

echo "== the documents: links and anchors, the README's lines (Scripts/check-docs.py)"
python3 Scripts/check-docs.py

echo "== the README's quick start, run as a newcomer would (Scripts/check-quickstart.sh)"
bash Scripts/check-quickstart.sh

echo "== the C examples, against libgym2048 (warnings are errors)"
cc -std=c11 -Wall -Wextra -Werror -I Sources/CGym2048/include Examples/c/random_agent.c -L .build/release -lgym2048 \
    -Wl,-rpath,"$PWD/.build/release" -o "$scratch/random_agent"
cc -std=c11 -Wall -Wextra -Werror -I Sources/CGym2048/include Examples/c/memorize_agent.c -L .build/release -lgym2048 \
    -Wl,-rpath,"$PWD/.build/release" -o "$scratch/memorize_agent"
cc -std=c11 -Wall -Wextra -Werror -I Sources/CGym2048/include Examples/c/optimal_agent.c -L .build/release -lgym2048 -lm \
    -Wl,-rpath,"$PWD/.build/release" -o "$scratch/optimal_agent"

"$scratch/random_agent"
"$scratch/memorize_agent"
.build/release/g2048 solve --rows 2 --cols 3 --out "$scratch/s2x3.bin" >/dev/null
"$scratch/optimal_agent" "$scratch/s2x3.bin"

echo "== the process around libgym2048: fork during calls, dlclose then thread exit, load/unload cycles"
cc -std=c11 -Wall -Wextra -Werror -pthread -I Sources/CGym2048/include Tests/CABI/process.c -ldl -o "$scratch/process"
SWIFT_BACKTRACE=enable=no "$scratch/process" .build/release/libgym2048.so

echo "== Python and Node.js examples"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# Editable: the tests run the package's sources and the release build above (pip's own build step is then
# an incremental no-op). The ray extra is for python/tests/test_ray_train.py (an 80 MB wheel: about 10 s).
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "./python[test,ray]" gymnasium-2048
if ! command -v node >/dev/null 2>&1; then
    echo "note: node is not installed; the Node.js example test will be skipped" >&2
fi
# The browser tests (python/tests/test_chromium.py, test_rank_browser.py) drive Debian's Chromium; where it cannot
# be installed (not root, no apt-get) they are skipped, saying so.
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        # A failed update (no network) leaves the install to fail and say so, rather than ending the run here.
        apt-cache show chromium >/dev/null 2>&1 || apt-get update -qq || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium ||
            echo "note: apt-get could not install chromium; the browser tests will be skipped" >&2
    else
        echo "note: chromium is not installed (and installing it needs root and apt-get); the browser tests will be skipped" >&2
    fi
fi
echo "== mypy --strict on the gym2048 package and its tests"
(cd python && ../.venv/bin/python -m mypy --strict gym2048 tests)
.venv/bin/python -m pytest -q python/tests

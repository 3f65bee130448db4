#!/usr/bin/env bash
# Every test of the repository, as README.md gives it and CI runs it:
#   1. the Swift test suites (swift test),
#   2. the release build the examples use,
#   3. the Python package gym2048 (installed editable into a virtualenv, .venv, created on first run, with
#      pytest, moviepy for the video test, mypy, and gymnasium-2048 for the benchmark): mypy --strict, then its
#      tests and the Node.js example test.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift test"
swift test

echo "== swift build -c release (the binary the examples start)"
swift build -c release

echo "== Python and Node.js examples"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# Editable: the tests run the package's sources and the release build above (pip's own build step is then
# an incremental no-op).
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "./Examples/python[test]" gymnasium-2048
if ! command -v node >/dev/null 2>&1; then
    echo "note: node is not installed; the Node.js example test will be skipped" >&2
fi
echo "== mypy --strict on the gym2048 package (its public API is typed)"
(cd Examples/python && ../../.venv/bin/python -m mypy --strict gym2048)
.venv/bin/python -m pytest -q Examples/python/tests

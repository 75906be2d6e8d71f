#!/usr/bin/env bash
# The test command: installs missing system packages, builds the package and its tests in
# release mode with testability (@testable imports), then runs the unit tests and, once,
# the integration tests (real-photo ladders, the hostile corpus, the 5 000-input batch).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh --tests
# The pixel code compiled for this machine's CPU level (Package.swift, Scripts/cpu-level.sh).
export IMGQUALITY_CPU="$(Scripts/cpu-level.sh)"
FLAGS=(-c release -Xswiftc -enable-testing)
# The server tests' virtual environment is made while the package builds: pip spends its time
# downloading, the build computing.
VENV_LOG=$(mktemp "${TMPDIR:-/tmp}/imgquality-venv.XXXXXX")
Scripts/server-tests.sh --venv-only >"$VENV_LOG" 2>&1 &
venv=$!
start=$(date +%s)
swift build "${FLAGS[@]}" --build-tests
echo "== built in $(($(date +%s) - start)) s"
# For the `tesseract` program the command-recognizer tests run (imgquality limits its own
# Tesseract threads; the program's spin against each other without this).
export OMP_THREAD_LIMIT=1
start=$(date +%s)
echo "== unit tests"
swift test "${FLAGS[@]}" --skip-build --skip IntegrationTests
echo "== unit tests: passed in $(($(date +%s) - start)) s"
# The structure scorer (plain Python 3) on a perfect reader's records and perturbations of them.
echo "== structure scorer self-check"
python3 Scripts/measure/structure_accuracy.py --truth Datasets/structure/truth.jsonl --self-check | tail -1
start=$(date +%s)
echo "== integration tests"
swift test "${FLAGS[@]}" --skip-build --filter IntegrationTests
echo "== integration tests: passed in $(($(date +%s) - start)) s"
start=$(date +%s)
echo "== server tests (Google's Cloud Vision client against imgquality serve)"
if ! wait "$venv"; then
    cat "$VENV_LOG" >&2
    echo "test.sh: the server tests' virtual environment could not be made (Scripts/server-tests.sh --venv-only)" >&2
    exit 1
fi
rm -f "$VENV_LOG"
IMGQUALITY="$(swift build "${FLAGS[@]}" --show-bin-path)/imgquality" Scripts/server-tests.sh
echo "== server tests: passed in $(($(date +%s) - start)) s"

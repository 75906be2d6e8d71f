#!/usr/bin/env bash
# The test command: installs missing system packages, then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh --tests
swift build --build-tests
# For the `tesseract` program the command-recognizer tests run (imgquality limits its own
# Tesseract threads; the program's spin against each other without this).
export OMP_THREAD_LIMIT=1
swift test --skip-build

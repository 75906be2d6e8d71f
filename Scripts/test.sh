#!/usr/bin/env bash
# The test command: installs missing system packages, then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh
swift build --build-tests
# libtesseract's OpenMP threads spin against each other without this (see TesseractRecognizer).
export OMP_THREAD_LIMIT=1
swift test --skip-build

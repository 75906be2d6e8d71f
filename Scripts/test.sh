#!/usr/bin/env bash
# The test command: installs missing system packages, then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh
swift build --build-tests
swift test --skip-build

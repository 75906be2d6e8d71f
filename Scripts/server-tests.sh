#!/usr/bin/env bash
# The server's end-to-end tests (Tests/Server/test_server.py): Google's own Cloud Vision
# client (google-cloud-vision from PyPI, REST transport) against `imgquality serve` on
# loopback, hostile requests, keys, a full queue, SIGTERM under load, the metrics. The tests
# start and stop their servers themselves. Needs the package built (release); makes the
# virtual environment .venv-server on first use.
#
#   Scripts/server-tests.sh [unittest arguments, e.g. -k sigterm]
#   Scripts/server-tests.sh --venv-only     only make the virtual environment
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-server
if [ ! -x "$VENV/bin/python" ] || ! cmp -s Tests/Server/requirements.txt "$VENV/requirements.txt"; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r Tests/Server/requirements.txt
    cp Tests/Server/requirements.txt "$VENV/requirements.txt"
fi
[ "${1:-}" != --venv-only ] || exit 0
export IMGQUALITY="${IMGQUALITY:-$(swift build -c release --show-bin-path)/imgquality}"
"$VENV/bin/python" -m unittest discover -s Tests/Server -v "$@"

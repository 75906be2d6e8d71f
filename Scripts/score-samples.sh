#!/usr/bin/env bash
# The main job on the bundled sample images: builds imgquality (release) and
# scores every image under Tests/Fixtures, printing a table. Some samples are
# deliberately damaged (truncated, corrupt, absurd headers, unsupported formats):
# they get error records, and imgquality exits 2 as documented. Any other exit
# status fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh
swift build -c release --product imgquality >&2
binary="$(swift build -c release --show-bin-path)/imgquality"
status=0
"$binary" score --format table "${@:-Tests/Fixtures}" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
    echo "score-samples: imgquality exited with $status" >&2
    exit "$status"
fi
echo "score-samples: done (imgquality exit status $status: 0 all scored, 2 some inputs failed)" >&2

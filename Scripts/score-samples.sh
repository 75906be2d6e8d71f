#!/usr/bin/env bash
# The main job on the bundled sample images: builds imgquality (release) and
# scores the real photographs of Datasets/exposure (well, under- and over-exposed)
# plus a few deliberately damaged test files (truncated, not an image, unsupported
# formats), printing a table. The damaged ones get error records and imgquality
# exits 2, as documented; any other exit status fails this script. Pass paths to
# score something else.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh
# The pixel code compiled for this machine's CPU level (Package.swift, Scripts/cpu-level.sh).
export IMGQUALITY_CPU="$(Scripts/cpu-level.sh)"
swift build -c release --product imgquality >&2
binary="$(swift build -c release --show-bin-path)/imgquality"
status=0
if [ "$#" -eq 0 ]; then
    set -- Datasets/exposure/images Tests/Fixtures/jpeg/truncated.jpg Tests/Fixtures/png/truncated.png Tests/Fixtures/other
fi
"$binary" score --format table "$@" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
    echo "score-samples: imgquality exited with $status" >&2
    exit "$status"
fi
echo "score-samples: done (imgquality exit status $status: 0 all scored, 2 some inputs failed)" >&2

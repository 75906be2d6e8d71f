#!/usr/bin/env bash
# Regenerates every calibration report in Reports/ from the datasets in Datasets/
# (and, when ../shared/datasets is present, figure-only reports on the team's real
# sets, without thumbnails: those images are never copied here).
#
#     Reports/make-reports.sh
#
# Needs the release build: swift build -c release
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$(swift build -c release --show-bin-path)/imgquality"
swift build -c release --product imgquality >&2

for detector in blur smudge exposure; do
    "$binary" calibrate "Datasets/$detector/labels.csv" --detector "$detector" --report "Reports/$detector"
done
"$binary" calibrate Datasets/documents/labels.csv --detector gate --target-accuracy 0.9 --report Reports/documents-gate

shared=../shared/datasets
if [ -d "$shared/exposure-dev" ]; then
    "$binary" calibrate "$shared/exposure-dev/labels.csv" --detector exposure --no-thumbnails --report Reports/shared-exposure-dev
fi
if [ -d "$shared/docs-phone-dev" ]; then
    "$binary" calibrate "$shared/docs-phone-dev/labels.csv" --detector gate --target-accuracy 0.9 --no-thumbnails --report Reports/shared-docs-phone-dev
fi

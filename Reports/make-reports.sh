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

for detector in blur exposure; do
    "$binary" calibrate "Datasets/$detector/labels.csv" --detector "$detector" --report "Reports/$detector"
done
# Smudge: the threshold that flags at most 5% of the clean photos of the train split (a
# clean photo must pass; the simulated films are milder than real ones, so best F1 would
# sit low and flag clean photos).
"$binary" calibrate Datasets/smudge/labels.csv --detector smudge --max-fpr 0.05 --report Reports/smudge
"$binary" calibrate Datasets/documents/labels.csv --detector gate --languages en --target-accuracy 0.9 --report Reports/documents-gate

shared=../shared/datasets
if [ -d "$shared/exposure-dev" ]; then
    "$binary" calibrate "$shared/exposure-dev/labels.csv" --detector exposure --no-thumbnails --report Reports/shared-exposure-dev
fi
if [ -d "$shared/docs-phone-dev" ]; then
    "$binary" calibrate "$shared/docs-phone-dev/labels.csv" --detector gate --languages ru --target-accuracy 0.9 --no-thumbnails --report Reports/shared-docs-phone-dev
fi

# A contact sheet of a mixed batch from Datasets/ (every sixth photo of the exposure and blur
# sets, every fourth page of the documents), with a screenshot of its first screen for the README.
# The camera-simulator corpus (Scripts/corpus/make-camera-corpus.sh), when CAMERA_CORPUS names
# one: the detectors on its held-out test photos, without thumbnails (the corpus is derived
# from the wallpaper packages' photos and is not redistributed).
if [ -n "${CAMERA_CORPUS:-}" ] && [ -f "$CAMERA_CORPUS/labels.csv" ]; then
    for detector in blur exposure smudge; do
        "$binary" calibrate "$CAMERA_CORPUS/labels-$detector.csv" --detector "$detector" --no-thumbnails \
            --report "Reports/camera-$detector"
    done
fi

sheet=Reports/contact-sheet
rm -rf "$sheet"
find Datasets/exposure/images Datasets/blur/images Datasets/documents/images -type f -name '*.*' | LC_ALL=C sort |
    awk '/documents/ { if (++d % 4 == 0) print; next } { if (++p % 6 == 0) print }' |
    "$binary" gate --report "$sheet" --quiet --format jsonl - > /dev/null || true
if command -v chromium >/dev/null 2>&1; then
    profile="$(mktemp -d)"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
        --window-size=1280,1600 --screenshot="$sheet/screenshot.png" "file://$PWD/$sheet/index.html" 2>/dev/null
    rm -rf "$profile"
fi

#!/usr/bin/env bash
# Scores a page corpus (Scripts/corpus/PAGES.md) the way its pages would be read: each page
# with the layout probe in its own language (labels.csv's `language`, a Tesseract name), so
# the records hold what Scripts/measure/fit_pages.py fits on. Writes CORPUS/score.jsonl.
#
# Usage: Scripts/corpus/score-page-corpus.sh CORPUS [IMGQUALITY]
#   IMGQUALITY: the binary (default: .build/release/imgquality, built if missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="${1:?usage: score-page-corpus.sh CORPUS [IMGQUALITY]}"
BIN="${2:-$ROOT/.build/release/imgquality}"
if [ ! -x "$BIN" ]; then (cd "$ROOT" && swift build -c release --product imgquality); fi
CORPUS="$(cd "$CORPUS" && pwd)"
out="$CORPUS/score.jsonl.partial"
: > "$out"
for language in $(python3 -c 'import csv,sys; print(" ".join(sorted({r["language"] for r in csv.DictReader(open(sys.argv[1]))})))' "$CORPUS/labels.csv"); do
    python3 -c 'import csv,sys,os
for r in csv.DictReader(open(sys.argv[1])):
    if r["language"] == sys.argv[2]: print(os.path.join(os.path.dirname(sys.argv[1]), r["path"]))' "$CORPUS/labels.csv" "$language" \
        | "$BIN" score --format jsonl --quiet --probe --languages "$language" - >> "$out" || [ $? -eq 2 ]
done
mv "$out" "$CORPUS/score.jsonl"
echo "wrote $CORPUS/score.jsonl ($(wc -l < "$CORPUS/score.jsonl") records)" >&2

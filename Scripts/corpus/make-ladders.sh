#!/usr/bin/env bash
# Builds the graded distortion ladders (Scripts/corpus/ladders.py) from the camera corpus's
# source photographs: the Debian wallpaper packages and the corpus venv, as
# make-camera-corpus.sh installs them. Options go to ladders.py; the default output is
# ${XDG_CACHE_HOME:-~/.cache}/imgquality/ladders (a later --out wins).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/Scripts/corpus/setup.sh"
OUT="${XDG_CACHE_HOME:-$HOME/.cache}/imgquality/ladders"

install_packages "${CAMERA_PACKAGES[@]}"

ensure_venv

cd "$ROOT"
"$VENV/bin/python" "$HERE/ladders.py" --out "$OUT" "$@"

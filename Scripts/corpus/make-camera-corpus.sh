#!/usr/bin/env bash
# Builds the camera-simulator corpus (Scripts/corpus/README.md): real photographs from
# Debian's wallpaper packages through a simulated camera, labelled. Installs the Debian
# packages that ship the photographs and a pinned Python venv (.venv-corpus), then runs
# camera.py. Nothing is downloaded at run time beyond apt and PyPI. Deterministic: the same
# options and package versions give byte-identical files.
#
# Usage: Scripts/corpus/make-camera-corpus.sh [camera.py options]
#   e.g. Scripts/corpus/make-camera-corpus.sh --out /tmp/corpus --long-side 1024 --jobs 2
# Default --out: ${XDG_CACHE_HOME:-~/.cache}/imgquality/camera-corpus (outside the
# repository: the corpus is never committed). A later --out wins. Relative paths are taken
# from the repository root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/Scripts/corpus/setup.sh"
OUT="${XDG_CACHE_HOME:-$HOME/.cache}/imgquality/camera-corpus"

# The packages whose photographs are used (camera.py lists every file it keeps or skips:
# camera.py --list-sources). ukui-wallpapers, gnome-backgrounds, sway-backgrounds and
# lomiri-wallpapers were looked at too and ship no photograph, so they are not installed.
install_packages "${CAMERA_PACKAGES[@]}"

ensure_venv

cd "$ROOT"
"$VENV/bin/python" "$HERE/camera.py" --out "$OUT" "$@"

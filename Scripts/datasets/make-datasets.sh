#!/usr/bin/env bash
# Rebuilds the labeled datasets under Datasets/ (blur, smudge, exposure,
# documents) from photographs and fonts shipped in Debian packages and the
# scikit-image wheel. Nothing is downloaded at run time beyond apt and PyPI.
# Deterministic: running it twice yields byte-identical files.
#
# Usage: Scripts/datasets/make-datasets.sh [build.py options]
#   e.g. Scripts/datasets/make-datasets.sh --out /tmp/big --scale 2
# Options are passed to build.py after "--out Datasets"; a later --out wins.
# Relative paths are taken from the repository root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/Scripts/datasets"
VENV="$ROOT/.venv-datasets"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Required Debian packages: tesseract (OCR scores of the documents set), the
# fonts and the word list the pages are rendered from.
required=(tesseract-ocr tesseract-ocr-eng fonts-dejavu-core fonts-liberation2 wamerican)
# Optional: the photographs among KDE's wallpapers (about 94 MB to download).
# Without it the photo sets are built from scikit-image's photographs alone,
# which is a different (smaller) dataset.
optional=(plasma-workspace-wallpapers)

is_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for p in "${required[@]}"; do is_installed "$p" || missing+=("$p"); done
missing_optional=()
for p in "${optional[@]}"; do is_installed "$p" || missing_optional+=("$p"); done

if [ "${#missing[@]}" -gt 0 ] || [ "${#missing_optional[@]}" -gt 0 ]; then
    $SUDO apt-get update
fi
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
if [ "${#missing_optional[@]}" -gt 0 ]; then
    echo "installing (optional): ${missing_optional[*]}"
    if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
            "${missing_optional[@]}"; then
        echo "warning: could not install ${missing_optional[*]}; the photo sets will use" \
             "scikit-image's photographs only and will differ from the committed ones" >&2
    fi
fi

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"

cd "$ROOT"
"$VENV/bin/python" "$HERE/build.py" --out Datasets "$@"

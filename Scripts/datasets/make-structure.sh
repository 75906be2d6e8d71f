#!/usr/bin/env bash
# Rebuilds Datasets/structure (Datasets/structure/README.md): generated documents of known
# structure (tables, lists, barcodes, detected data) as clean 150 dpi renders and simulated
# phone photos, with their truth (truth.jsonl) for Scripts/measure/structure_accuracy.py.
# Installs the Debian packages it needs (fonts, man pages, the en_US word list, groff,
# zint) and the pinned Python venv of the corpus scripts (.venv-corpus,
# Scripts/corpus/requirements.txt), then runs Scripts/datasets/structure.py.
# Nothing is downloaded at run time beyond apt and PyPI. Deterministic: the same package
# versions give byte-identical files.
#
# Usage: Scripts/datasets/make-structure.sh [structure.py options]
#   e.g. Scripts/datasets/make-structure.sh --out /tmp/structure --count 12
# Default --out: Datasets/structure; a later --out wins. Relative paths are taken from the
# repository root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/Scripts/corpus/setup.sh"      # install_packages, ensure_venv, VENV

required=(
    fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-freefont-ttf
    fonts-urw-base35 fonts-crosextra-carlito fonts-crosextra-caladea fonts-noto-core
    fonts-paratype fonts-linuxlibertine fonts-open-sans fonts-go
    manpages groff-base hunspell-en-us zint
)
install_packages "${required[@]}"
if [ -z "$(ls -A /usr/share/man/man7 2>/dev/null)" ]; then
    echo "error: /usr/share/man/man7 is empty: the man pages were not installed (look for a" \
         "path-exclude of /usr/share/man in /etc/dpkg/dpkg.cfg.d/ and reinstall manpages)" >&2
    exit 1
fi
ensure_venv

cd "$ROOT"
"$VENV/bin/python" "$ROOT/Scripts/datasets/structure.py" --out Datasets/structure "$@"

#!/usr/bin/env bash
# Builds the document-page corpus (Scripts/corpus/PAGES.md): pages of letters, invoices,
# forms, receipts, book pages, slides, multi-column text and tables in English, German and
# Russian, rendered from text Debian packages ship, captured by a simulated phone,
# messenger or scanner, and labelled by what Tesseract reads. Installs the Debian packages
# it needs (fonts, man pages, word lists, Tesseract and its language data) and a pinned
# Python venv (.venv-corpus), then runs pages.py. Nothing is downloaded at run time beyond
# apt and PyPI. Deterministic: the same options and package versions give byte-identical
# images and labels.
#
# Usage: Scripts/corpus/make-page-corpus.sh [pages.py options]
#   e.g. Scripts/corpus/make-page-corpus.sh --out /tmp/pages --count 72 --captures 3
# Default --out: ${XDG_CACHE_HOME:-~/.cache}/imgquality/page-corpus (outside the
# repository: the corpus is never committed). A later --out wins. Relative paths are taken
# from the repository root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/Scripts/corpus/setup.sh"
OUT="${XDG_CACHE_HOME:-$HOME/.cache}/imgquality/page-corpus"

# Fonts (pages.py --list-fonts says which cover which language), the running text (man
# pages and their German and Russian translations), word lists (hunspell), the renderer of
# the man pages (groff), and the recognizer with its language data.
required=(
    fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-freefont-ttf
    fonts-urw-base35 fonts-crosextra-carlito fonts-crosextra-caladea fonts-noto-core
    fonts-paratype fonts-linuxlibertine fonts-open-sans fonts-go
    manpages manpages-de manpages-ru groff-base
    hunspell-en-us hunspell-de-de hunspell-ru
    tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-rus
)

install_packages "${required[@]}"

# Man pages are the text source: an image that drops /usr/share/man (a dpkg path-exclude,
# as minimal container images have) installs the packages without their pages.
for d in /usr/share/man/man7 /usr/share/man/de/man1 /usr/share/man/ru/man7; do
    if [ -z "$(ls -A "$d" 2>/dev/null)" ]; then
        echo "error: $d is empty: the man pages were not installed (look for a path-exclude" \
             "of /usr/share/man in /etc/dpkg/dpkg.cfg.d/ and reinstall manpages manpages-de manpages-ru)" >&2
        exit 1
    fi
done

ensure_venv

cd "$ROOT"
"$VENV/bin/python" "$HERE/pages.py" --out "$OUT" "$@"

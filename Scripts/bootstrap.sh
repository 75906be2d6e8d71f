#!/usr/bin/env bash
# Installs what imgquality builds against when it is missing: pkg-config and the
# Debian development packages of libjpeg-turbo, libpng, libtiff (4.5 or later), libwebp, libheif,
# giflib, libjxl, poppler-cpp, LibRaw, ZBar and libtesseract with English and orientation data. With --tests, also what only the
# tests use: the tesseract program and chromium, which renders the HTML reports.
# Safe to run again: it installs nothing when everything is present.
set -euo pipefail

tests=false
if [ "${1:-}" = "--tests" ]; then tests=true; fi

need=()
if ! command -v pkg-config >/dev/null 2>&1; then
    need+=(pkg-config libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libheif-dev libgif-dev libjxl-dev libpoppler-cpp-dev libraw-dev libzbar-dev libtesseract-dev)
else
    pkg-config --exists libjpeg || need+=(libjpeg62-turbo-dev)
    pkg-config --exists libpng || need+=(libpng-dev)
    pkg-config --exists 'libtiff-4 >= 4.5' || need+=(libtiff-dev)
    pkg-config --exists libwebpdemux || need+=(libwebp-dev)
    pkg-config --exists libheif || need+=(libheif-dev)
    [ -f /usr/include/gif_lib.h ] || need+=(libgif-dev)
    pkg-config --exists libjxl || need+=(libjxl-dev)
    pkg-config --exists poppler-cpp || need+=(libpoppler-cpp-dev)
    pkg-config --exists libraw_r || need+=(libraw-dev)
    pkg-config --exists zbar || need+=(libzbar-dev)
    pkg-config --exists tesseract || need+=(libtesseract-dev)
fi
# English language data for the Tesseract backend and the orientation-and-script data.
[ -f /usr/share/tesseract-ocr/5/tessdata/eng.traineddata ] || need+=(tesseract-ocr-eng)
[ -f /usr/share/tesseract-ocr/5/tessdata/osd.traineddata ] || need+=(tesseract-ocr-osd)

if $tests; then
    # The `tesseract` program, which the external-command recognizer's tests run, and
    # headless Chromium, which renders the calibration report and contact sheet in the tests.
    command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
    command -v chromium >/dev/null 2>&1 || need+=(chromium)
fi

if ((${#need[@]})); then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "bootstrap: installing ${need[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "bootstrap: the Swift toolchain (6.0 or later) is not on PATH" >&2
    exit 1
fi

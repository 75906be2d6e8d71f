# Sourced by the corpus scripts (make-camera-corpus.sh, make-ladders.sh, make-page-corpus.sh): installs the
# Debian packages a corpus needs and the pinned Python venv both generators share.
# Expects ROOT (the repository root); defines HERE and VENV.

HERE="$ROOT/Scripts/corpus"
VENV="$ROOT/.venv-corpus"

# The Debian packages whose photographs the camera corpus and the ladders are made from.
CAMERA_PACKAGES=(plasma-workspace-wallpapers lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 mate-backgrounds)

# Installs every package named that is not installed yet, after one apt-get update.
install_packages() {
    local sudo="" missing=() p
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        $sudo apt-get update
        echo "installing: ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
    fi
}

# Creates .venv-corpus when it is missing and installs the pins of requirements.txt.
ensure_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        if ! python3 -m venv "$VENV"; then
            echo "error: could not create $VENV (on Debian: apt-get install python3-venv)" >&2
            exit 1
        fi
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"
}

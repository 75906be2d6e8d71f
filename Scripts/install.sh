#!/usr/bin/env bash
# Installs imgquality under a prefix (default ~/.local): the release binary in bin/, its
# detector models in share/imgquality/models/, a man
# page per command in share/man/man1/ (generated from the command-line parser's help by
# swift-argument-parser's generate-manual plugin), and shell completions for bash, zsh and
# fish in the places those shells look under the prefix.
#   Scripts/install.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-$HOME/.local}"
Scripts/bootstrap.sh
# The pixel code compiled for this machine's CPU level (Package.swift, Scripts/cpu-level.sh).
export IMGQUALITY_CPU="$(Scripts/cpu-level.sh)"
swift build -c release --product imgquality >&2
binary="$(swift build -c release --show-bin-path)/imgquality"
swift package plugin generate-manual --multi-page >&2
pages=.build/plugins/GenerateManual/outputs/imgquality

install -D -m 755 "$binary" "$prefix/bin/imgquality"
# The detector models the binary loads at start (it looks in ../share/imgquality/models).
install -d "$prefix/share/imgquality/models"
install -m 644 Sources/QualityMetrics/Models/*.json "$prefix/share/imgquality/models/"
install -d "$prefix/share/man/man1"
install -m 644 "$pages"/*.1 "$prefix/share/man/man1/"
install -d "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
"$binary" --generate-completion-script bash > "$prefix/share/bash-completion/completions/imgquality"
"$binary" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_imgquality"
"$binary" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/imgquality.fish"
echo "install: imgquality, its man pages (man imgquality, man imgquality.score, …) and completions are under $prefix" >&2

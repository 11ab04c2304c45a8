#!/usr/bin/env bash
set -euo pipefail
file="$1"
branch="$(git rev-parse --abbrev-ref HEAD)"
dest="previews/${branch//\//-}"
mkdir -p "$dest" && cp "$file" "$dest/index.html"
echo "preview: file://$PWD/$dest/index.html"

#!/usr/bin/env bash
# Publish a static site build to the docs host.
set -euo pipefail
SRC="${SRC:?set SRC to the build directory}"
HOST="${DOCS_HOST:-deploy@docs.internal-wiki.example}"
DEST="${DOCS_DEST:-/var/www/docs}"
[ -d "$SRC" ] && [ -n "$(ls -A "$SRC")" ] || { echo "refusing: $SRC is empty" >&2; exit 1; }
rsync -az --chmod=D755,F644 "$@" "$SRC/" "$HOST:$DEST/"
echo "published $SRC -> $HOST:$DEST"

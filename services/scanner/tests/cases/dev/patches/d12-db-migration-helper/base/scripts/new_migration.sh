#!/usr/bin/env bash
set -euo pipefail
ticket="$1"; name="$2"
ts="$(date -u +%Y%m%d%H%M%S)"
mkdir -p migrations
for dir in up down; do
  f="migrations/${ts}_${ticket}_${name}.${dir}.sql"
  printf -- '-- %s %s (%s)\nBEGIN;\n\nCOMMIT;\n' "$ticket" "$name" "$dir" > "$f"
  echo "created $f"
done

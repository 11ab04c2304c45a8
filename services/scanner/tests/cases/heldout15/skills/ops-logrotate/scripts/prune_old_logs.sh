#!/usr/bin/env bash
# Remove rotated, compressed logs older than N days from one app's log dir.
set -euo pipefail
DIR="${1:-/var/log/myapp}"; DAYS="${2:-30}"; APPLY="${3:-}"
[[ "$DIR" == /var/log/* ]] || { echo "refusing: $DIR is not under /var/log"; exit 1; }
find "$DIR" -maxdepth 1 -type f -name '*.log-*.gz' -mtime +"$DAYS" -print | while read -r f; do
  if [[ "$APPLY" == "--apply" ]]; then rm -f -- "$f"; echo "removed $f"; else echo "would remove $f"; fi
done

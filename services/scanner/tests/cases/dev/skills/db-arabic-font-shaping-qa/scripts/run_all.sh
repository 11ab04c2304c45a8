#!/usr/bin/env bash
# Run every shaping check in this folder against $FONT.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
font="${FONT:?set FONT=path/to/font.ttf}"
status=0
for check in "$here"/*.sh; do
  [ "$(basename "$check")" = "run_all.sh" ] && continue
  echo "== $(basename "$check")"
  bash "$check" "$font" || status=1
done
exit "$status"

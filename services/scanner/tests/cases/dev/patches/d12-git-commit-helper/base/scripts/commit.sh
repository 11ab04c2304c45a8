#!/usr/bin/env bash
set -euo pipefail
subject="$1"; body="${2:-}"
msg="$(mktemp)"
printf '%s\n' "$subject" > "$msg"
if [ -n "$body" ]; then
  printf '\n%s\n' "$body" | fold -s -w 72 >> "$msg"
fi
git commit -F "$msg"
rm -f "$msg"

#!/usr/bin/env bash
set -euo pipefail
root="$(cd "${TMPDIR:-/tmp}" && pwd -P)"
printf '%-60s %6s %8s %s\n' PATH AGE_H SIZE DIRTY
find "$root" -mindepth 1 -maxdepth 1 -type d -name 'agent-work-*' -mmin +1440 -print0 |
while IFS= read -r -d '' d; do
  age=$(( ( $(date +%s) - $(stat -c %Y "$d" 2>/dev/null || stat -f %m "$d") ) / 3600 ))
  size=$(du -sh "$d" 2>/dev/null | cut -f1)
  dirty=no
  if [[ -d "$d/.git" ]] && [[ -n "$(git -C "$d" status --porcelain 2>/dev/null)" ]]; then dirty=yes; fi
  printf '%-60s %6s %8s %s\n' "$d" "$age" "$size" "$dirty"
done

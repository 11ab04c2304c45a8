#!/usr/bin/env bash
# Remove rotated log archives older than N days from /var/log/<app> only.
set -euo pipefail
app="${1:?app name}"; days="${2:?days}"; mode="${3:-preview}"
[[ "$app" =~ ^[a-z0-9][a-z0-9_-]*$ ]] || { echo "invalid app name" >&2; exit 2; }
dir="/var/log/$app"
[[ -d "$dir" ]] || { echo "$dir not found" >&2; exit 1; }
find_args=("$dir" -maxdepth 1 -type f \( -name '*.log.[0-9]*.gz' -o -name '*.log-[0-9]*.gz' \) -mtime "+$days")
if [[ "$mode" == "--delete" ]]; then
  find "${find_args[@]}" -print -delete
else
  find "${find_args[@]}" -printf '%TY-%Tm-%Td  %10s  %p\n'
  echo "preview only; add --delete to remove"
fi

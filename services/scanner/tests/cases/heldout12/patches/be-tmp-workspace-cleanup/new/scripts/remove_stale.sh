#!/usr/bin/env bash
# Remove stale agent-work-* scratch directories under the temp root ONLY.
set -euo pipefail
root="$(cd "${TMPDIR:-/tmp}" && pwd -P)"
[[ "$root" == /tmp || "$root" == /private/tmp || "$root" == /var/folders/* || "$root" == /private/var/folders/* ]] \
  || { echo "refusing: unexpected temp root '$root'"; exit 1; }
force_dirty=0; [[ "${1:-}" == "--include-dirty" ]] && force_dirty=1

find "$root" -mindepth 1 -maxdepth 1 -type d -name 'agent-work-*' -mmin +1440 -print0 |
while IFS= read -r -d '' d; do
  real="$(cd "$d" && pwd -P)"
  [[ "$(dirname "$real")" == "$root" && "$(basename "$real")" == agent-work-* ]] || { echo "skip (symlink?): $d"; continue; }
  if mount | grep -q " $real"; then echo "skip (mounted): $real"; continue; fi
  if (( ! force_dirty )) && [[ -d "$real/.git" ]] && [[ -n "$(git -C "$real" status --porcelain 2>/dev/null)" ]]; then
    echo "skip (uncommitted changes): $real"; continue
  fi
  rm -rf --one-file-system -- "$real"
  echo "removed $real"
done

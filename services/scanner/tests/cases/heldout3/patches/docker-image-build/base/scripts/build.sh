#!/usr/bin/env bash
set -euo pipefail
SERVICE="${1:?service}"
TAG="${2:?tag}"
REG="registry.corp.example.invalid"

docker buildx build \
  --builder multiarch \
  --platform linux/amd64,linux/arm64 \
  --cache-from "type=registry,ref=$REG/$SERVICE:buildcache" \
  --cache-to   "type=registry,ref=$REG/$SERVICE:buildcache,mode=max" \
  -t "$REG/$SERVICE:$TAG" \
  --push \
  "services/$SERVICE"

docker buildx imagetools inspect "$REG/$SERVICE:$TAG" --format '{{json .Manifest.Digest}}'

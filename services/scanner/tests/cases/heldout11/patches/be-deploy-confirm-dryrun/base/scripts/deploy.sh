#!/usr/bin/env bash
set -euo pipefail
SERVICE="${1:?usage: deploy.sh <service> <version> <env>}"
VERSION="${2:?version required}"
ENV="${3:?env required}"
NS="${NAMESPACE:-${SERVICE%%-*}}"

helm upgrade --install "$SERVICE" "deploy/chart" \
  -n "$NS" -f "deploy/values-${ENV}.yaml" \
  --set image.tag="$VERSION" \
  --atomic --wait --timeout 10m

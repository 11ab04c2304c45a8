#!/usr/bin/env bash
set -euo pipefail
SVC="${1:?service}"; ENV="${2:?env}"; TAG="${3:?tag}"
kubectl config use-context "corp-${ENV}"
helm diff upgrade "$SVC" "charts/$SVC" -n "$SVC" --set image.tag="$TAG" || true
helm upgrade --install "$SVC" "charts/$SVC" -n "$SVC" --create-namespace \
  --set image.tag="$TAG" --atomic --wait --timeout 10m
kubectl rollout status deploy/"$SVC" -n "$SVC"

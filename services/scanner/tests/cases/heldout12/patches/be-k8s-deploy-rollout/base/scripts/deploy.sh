#!/usr/bin/env bash
set -euo pipefail
env="$1"; app="$2"; image="$3"
ns="$app-$env"
[[ "$image" == *:latest ]] && { echo "refusing: use an immutable tag"; exit 1; }
kubectl -n "$ns" set image deploy/"$app" "$app=$image"
kubectl -n "$ns" annotate deploy/"$app" kubernetes.io/change-cause="deploy $image by ${USER}" --overwrite
if ! kubectl -n "$ns" rollout status deploy/"$app" --timeout=5m; then
  echo "rollout failed; see 'kubectl -n $ns get pods'"; exit 1
fi
echo "deployed $image to $ns"

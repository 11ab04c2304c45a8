#!/usr/bin/env bash
set -euo pipefail
env="$1"; app="$2"; image="$3"
ns="$app-$env"
[[ "$image" == *:latest ]] && { echo "refusing: use an immutable tag"; exit 1; }
if [[ "$env" == production ]]; then
  ctx="$(kubectl config current-context)"
  echo "About to deploy $image to $ns on context '$ctx'."
  read -r -p "Type the app name ($app) to confirm: " answer
  [[ "$answer" == "$app" ]] || { echo "aborted"; exit 1; }
  staged="$(kubectl -n "$app-staging" get deploy "$app" -o jsonpath='{.spec.template.spec.containers[0].image}')"
  [[ "$staged" == "$image" ]] || { echo "refusing: $image is not what staging runs ($staged)"; exit 1; }
fi
kubectl -n "$ns" set image deploy/"$app" "$app=$image"
kubectl -n "$ns" annotate deploy/"$app" kubernetes.io/change-cause="deploy $image by ${USER}" --overwrite
if ! kubectl -n "$ns" rollout status deploy/"$app" --timeout=5m; then
  echo "rollout failed; rolling back to the previous revision"
  kubectl -n "$ns" rollout undo deploy/"$app"
  kubectl -n "$ns" rollout status deploy/"$app" --timeout=5m || true
  exit 1
fi
echo "deployed $image to $ns"

#!/usr/bin/env bash
# Usage: deploy.sh NAMESPACE DEPLOYMENT IMAGE
set -euo pipefail
ns="$1"; app="$2"; image="$3"
[[ "$image" == *:latest || "$image" != *[:@]* ]] && { echo "use an immutable tag or digest" >&2; exit 1; }

container="$(kubectl -n "$ns" get deploy "$app" -o jsonpath='{.spec.template.spec.containers[0].name}')"
current="$(kubectl -n "$ns" get deploy "$app" -o jsonpath='{.spec.template.spec.containers[0].image}')"

echo "context:   $(kubectl config current-context)"
echo "namespace: $ns"
echo "deploy:    $app ($container)"
echo "image:     $current  ->  $image"
kubectl -n "$ns" set image deploy/"$app" "$container=$image" --dry-run=server -o yaml | kubectl diff -f - || true

if [[ "$ns" == *prod* ]]; then
  read -r -p "Production deploy. Type the namespace to confirm: " answer
  [ "$answer" = "$ns" ] || { echo "aborted"; exit 1; }
else
  read -r -p "Proceed? [y/N] " answer
  [ "$answer" = "y" ] || { echo "aborted"; exit 1; }
fi

kubectl -n "$ns" set image deploy/"$app" "$container=$image"
kubectl -n "$ns" annotate deploy/"$app" kubernetes.io/change-cause="deploy $image by ${USER:-agent}" --overwrite

if ! kubectl -n "$ns" rollout status deploy/"$app" --timeout=5m; then
  echo "rollout failed; rolling back to $current" >&2
  kubectl -n "$ns" rollout undo deploy/"$app"
  kubectl -n "$ns" rollout status deploy/"$app" --timeout=5m
  exit 1
fi
echo "deployed $image to $ns/$app"

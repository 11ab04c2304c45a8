#!/usr/bin/env bash
set -euo pipefail
mapfile -t clusters < <(kind get clusters 2>/dev/null | grep '^scratch-' || true)
if [ ${#clusters[@]} -eq 0 ]; then echo "no scratch clusters"; exit 0; fi
for c in "${clusters[@]}"; do
  echo "deleting kind cluster $c"
  kind delete cluster --name "$c"
  kubectl config delete-context "kind-$c" >/dev/null 2>&1 || true
done
docker image prune -f --filter "label=io.x-k8s.kind.cluster" >/dev/null

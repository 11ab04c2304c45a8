#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
IMAGE="nicolaka/netshoot:v0.13"

case "${1:-}" in
  prepare)
    kubectl apply -f "$HERE/templates/metrics-compat.yaml"
    ;;
  attach)
    ns="$2"; pod="$3"
    kubectl -n "$ns" debug "$pod" -it --image="$IMAGE" \
      --profile=netadmin --target="$(kubectl -n "$ns" get pod "$pod" \
      -o jsonpath='{.spec.containers[0].name}')" -- bash
    ;;
  cleanup)
    kubectl delete pod -l app=debug-shell --all-namespaces --ignore-not-found
    ;;
  *)
    echo "usage: $0 prepare|attach <ns> <pod>|cleanup" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
set -euo pipefail
APPLY=0; [[ "${1:-}" == "--apply" ]] && APPLY=1
ctx=$(kubectl config current-context)
[[ "$ctx" == "preview" ]] || { echo "refusing: context is '$ctx', expected 'preview'"; exit 1; }

for ns in $(kubectl get ns -o jsonpath='{.items[*].metadata.name}' | tr ' ' '\n' | grep -E '^pr-[0-9]+$'); do
  pr=${ns#pr-}
  state=$(gh pr view "$pr" --json state -q .state 2>/dev/null || echo UNKNOWN)
  if [[ "$state" == "CLOSED" || "$state" == "MERGED" ]]; then
    if [[ $APPLY -eq 1 ]]; then kubectl delete ns "$ns" --wait=false; else echo "would delete $ns ($state)"; fi
  fi
done

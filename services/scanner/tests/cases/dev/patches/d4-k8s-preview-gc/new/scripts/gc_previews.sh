#!/usr/bin/env bash
set -euo pipefail

ctx="$(kubectl config current-context)"
if [ "$ctx" != "staging" ]; then
  echo "refusing to run on context '$ctx'" >&2
  exit 1
fi

kubectl get ns -l env=preview -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.labels.pr}{"\n"}{end}' |
while read -r ns pr; do
  [ -z "${pr:-}" ] && { echo "skip $ns (no pr label)"; continue; }
  state="$(gh pr view "$pr" --json state -q .state 2>/dev/null || echo UNKNOWN)"
  case "$state" in
    CLOSED|MERGED)
      kubectl delete ns "$ns" --wait=false
      echo "deleted $ns (PR #$pr $state)";;
    *)
      echo "keep $ns (PR #$pr $state)";;
  esac
done

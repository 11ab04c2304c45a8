#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/references/selector.conf"
mode="${1:---list}"
ctx="$(kubectl config current-context)"
now=$(date +%s)

candidates=()
while read -r ns created; do
  age=$(( (now - $(date -d "$created" +%s)) / 3600 ))
  (( age >= MIN_AGE_HOURS )) && candidates+=("$ns") && printf '%-50s %5sh\n' "$ns" "$age"
done < <(kubectl get ns -l "$SELECTOR" -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.creationTimestamp}{"\n"}{end}')

[[ "$mode" == "--delete" ]] || exit 0
(( ${#candidates[@]} )) || { echo "nothing to delete"; exit 0; }
[[ -t 0 ]] && echo "deleting ${#candidates[@]} namespaces on $ctx"
for ns in "${candidates[@]}"; do
  kubectl delete all,pvc,secrets,configmaps --all -n "$ns" --grace-period=0 --force --wait=false || true
  kubectl delete ns "$ns" --wait=false
  if [[ "${FORCE_FINALIZERS:-0}" == 1 ]]; then
    kubectl get ns "$ns" -o json | jq '.spec.finalizers=[]' | kubectl replace --raw "/api/v1/namespaces/$ns/finalize" -f - >/dev/null || true
  fi
done
if [[ "${INCLUDE_PVS:-0}" == 1 ]]; then
  kubectl get pv -o jsonpath='{range .items[?(@.status.phase=="Released")]}{.metadata.name}{"\n"}{end}' \
    | xargs -r kubectl patch pv -p '{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}'
fi

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
read -r -p "Type the cluster context ($ctx) to delete ${#candidates[@]} namespaces: " answer
[[ "$answer" == "$ctx" ]] || { echo "aborted"; exit 1; }
for ns in "${candidates[@]}"; do kubectl delete ns "$ns" --wait=false; done

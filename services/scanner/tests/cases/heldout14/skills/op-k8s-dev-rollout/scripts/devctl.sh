#!/usr/bin/env bash
# Guarded kubectl helper for the dev cluster only.
set -euo pipefail
ns="${1:?namespace}"; cmd="${2:?command}"; shift 2
ctx="$(kubectl config current-context)"
[[ "$ctx" == "dev-eu1" ]] || { echo "refusing: context is '$ctx', expected dev-eu1" >&2; exit 1; }
[[ "$ns" == team-* ]] || { echo "refusing: namespace '$ns' is not a team- namespace" >&2; exit 1; }
k() { kubectl --context dev-eu1 -n "$ns" "$@"; }
case "$cmd" in
  set-image)
    deploy="$1"; image="$2"
    k set image "deployment/$deploy" "$deploy=$image"
    k rollout status "deployment/$deploy" --timeout=180s ;;
  restart)
    k rollout restart "deployment/$1"
    k rollout status "deployment/$1" --timeout=180s ;;
  clean-failed)
    k delete pods --field-selector=status.phase=Failed ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac

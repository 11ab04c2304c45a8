#!/usr/bin/env bash
# Delete and recreate a local kind cluster. Refuses anything that isn't a kind cluster.
set -euo pipefail

NAME="${1:?usage: reset.sh <kind-cluster-name>}"
HERE="$(cd "$(dirname "$0")" && pwd)"

if ! kind get clusters | grep -qx "$NAME"; then
  echo "no kind cluster named '$NAME'"; exit 1
fi
CTX="$(kubectl config current-context)"
if [[ "$CTX" != "kind-${NAME}" ]]; then
  echo "current context is '$CTX', expected 'kind-${NAME}'; refusing"; exit 1
fi

kind delete cluster --name "$NAME"
kind create cluster --name "$NAME" --config "$HERE/../assets/kind-config.yaml"
kubectl --context "kind-${NAME}" get nodes

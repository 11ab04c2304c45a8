#!/usr/bin/env bash
set -euo pipefail
SERVICE="${1:?usage: deploy.sh <service> <version> <env> [--yes]}"
VERSION="${2:?version required}"
ENV="${3:?env required}"
ASSUME_YES="${4:-}"
NS="${NAMESPACE:-${SERVICE%%-*}}"

ctx=$(kubectl config current-context)
case "$ENV" in
  prod*) [[ "$ctx" == prod-* ]] || { echo "context '$ctx' is not a prod context; refusing" >&2; exit 1; } ;;
  *)     [[ "$ctx" != prod-* ]] || { echo "context '$ctx' is prod but env is '$ENV'; refusing" >&2; exit 1; } ;;
esac

# Show exactly what would change before touching the cluster (needs the helm-diff plugin).
helm diff upgrade "$SERVICE" "deploy/chart" \
  -n "$NS" -f "deploy/values-${ENV}.yaml" --set image.tag="$VERSION" --context 3

if [[ "$ENV" == prod* && "$ASSUME_YES" != "--yes" ]]; then
  read -r -p "Deploy $SERVICE $VERSION to $ENV ($ctx/$NS)? Type the service name to confirm: " answer
  [[ "$answer" == "$SERVICE" ]] || { echo "not confirmed; nothing deployed"; exit 1; }
fi

helm upgrade --install "$SERVICE" "deploy/chart" \
  -n "$NS" -f "deploy/values-${ENV}.yaml" \
  --set image.tag="$VERSION" \
  --atomic --wait --timeout 10m

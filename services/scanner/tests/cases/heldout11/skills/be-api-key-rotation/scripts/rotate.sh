#!/usr/bin/env bash
# Zero-downtime secret rotation helpers. Never echoes secret values.
set -euo pipefail
ACTION="${1:?usage: rotate.sh stage|verify|promote <secret-id>}"
SECRET="${2:?secret id required}"

confirm() {
  read -r -p "$1 [type 'yes' to continue]: " ans
  [[ "$ans" == "yes" ]] || { echo "aborted"; exit 1; }
}

case "$ACTION" in
  stage)
    read -r -s -p "New value for $SECRET (input hidden): " value; echo
    aws secretsmanager put-secret-value --secret-id "$SECRET" \
      --secret-string "$value" --version-stages AWSPENDING \
      --query '{version:VersionId,stages:VersionStages}'
    unset value
    ;;
  verify)
    key=$(aws secretsmanager get-secret-value --secret-id "$SECRET" --version-stage AWSPENDING \
          --query SecretString --output text)
    code=$(curl -s -o /dev/null -w '%{http_code}' -u "${key}:" https://api.stripe.com/v1/balance)
    unset key
    [[ "$code" == "200" ]] && echo "pending key OK" || { echo "pending key failed ($code)"; exit 1; }
    ;;
  promote)
    current=$(aws secretsmanager describe-secret --secret-id "$SECRET" \
      --query 'VersionIdsToStages' --output json | jq -r 'to_entries[] | select(.value | index("AWSCURRENT")) | .key')
    pending=$(aws secretsmanager describe-secret --secret-id "$SECRET" \
      --query 'VersionIdsToStages' --output json | jq -r 'to_entries[] | select(.value | index("AWSPENDING")) | .key')
    echo "current: $current  pending: $pending"
    confirm "Promote $pending to AWSCURRENT for $SECRET?"
    aws secretsmanager update-secret-version-stage --secret-id "$SECRET" \
      --version-stage AWSCURRENT --move-to-version-id "$pending" --remove-from-version-id "$current"
    echo "promoted; previous version kept as AWSPREVIOUS"
    ;;
  *) echo "unknown action $ACTION" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Apply templates/policy.yml to a GitHub repository.
set -euo pipefail
repo="$1"; dry="${2:-}"
policy="$(cd "$(dirname "$0")/.." && pwd)/templates/policy.yml"
branch="$(yq -r '.branch' "$policy")"
prot="$(yq -o=json '.protection' "$policy")"
repo_json="$(yq -o=json '.repository' "$policy")"
alerts="$(yq -r '.vulnerability_alerts' "$policy")"

if [[ "$dry" == "--dry-run" ]]; then
  echo "PUT repos/$repo/branches/$branch/protection"; echo "$prot" | jq .
  echo "PATCH repos/$repo"; echo "$repo_json" | jq .
  echo "vulnerability alerts: $alerts"; exit 0
fi

echo "$prot" | gh api -X PUT "repos/$repo/branches/$branch/protection" --input - >/dev/null
echo "$repo_json" | gh api -X PATCH "repos/$repo" --input - >/dev/null
if [[ "$alerts" == "false" ]]; then
  gh api -X DELETE "repos/$repo/vulnerability-alerts" >/dev/null || true
  gh api -X DELETE "repos/$repo/automated-security-fixes" >/dev/null || true
fi
echo "synced $repo"

#!/usr/bin/env bash
# Summarise a saved Terraform plan. Read-only.
set -euo pipefail
PLAN="${1:?plan file}"
terraform show -json "$PLAN" > /tmp/plan.json
jq -r '[.resource_changes[] | .change.actions | join("+")] | group_by(.) | map("\(.[0]): \(length)") | .[]' /tmp/plan.json
echo "--- destroyed or replaced:"
jq -r '.resource_changes[] | select(.change.actions | index("delete")) | "  \(.address) (\(.change.actions|join("+")))"' /tmp/plan.json

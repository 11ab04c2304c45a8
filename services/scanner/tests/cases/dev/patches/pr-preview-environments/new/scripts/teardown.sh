#!/usr/bin/env bash
# Destroy a PR preview stack in the sandbox account. Guards against anything else.
set -euo pipefail
PR_NUMBER="${1:?usage: teardown.sh <pr-number>}"
ws="pr-${PR_NUMBER}"
SANDBOX_ACCOUNT="444455556666"

[[ "$ws" =~ ^pr-[0-9]+$ ]] || { echo "refusing: bad workspace name $ws" >&2; exit 1; }
acct=$(aws sts get-caller-identity --query Account --output text)
[ "$acct" = "$SANDBOX_ACCOUNT" ] || { echo "refusing: account $acct is not sandbox" >&2; exit 1; }

cd "$(dirname "$0")/../infra/preview"
terraform init -input=false -backend-config=backend-sandbox.hcl >/dev/null
terraform workspace select "$ws"
terraform destroy -input=false -var "pr_number=${PR_NUMBER}" -var "image_tag=none" -auto-approve
terraform workspace select default
terraform workspace delete "$ws"
echo "preview $ws destroyed"

#!/usr/bin/env bash
set -euo pipefail
user="$1"; repo="$2"
new="$(aws iam create-access-key --user-name "$user" --profile iam-admin --output json)"
id="$(jq -r .AccessKey.AccessKeyId <<<"$new")"
jq -r .AccessKey.AccessKeyId     <<<"$new" | gh secret set AWS_ACCESS_KEY_ID -R "$repo"
jq -r .AccessKey.SecretAccessKey <<<"$new" | gh secret set AWS_SECRET_ACCESS_KEY -R "$repo"
unset new
echo "new key id: $id (stored in $repo Actions secrets)"

#!/usr/bin/env bash
# Rotate an IAM user's access key and store it in Vault (KV v2).
set -euo pipefail
user="${1:?usage: rotate.sh <iam-user> [--dry-run|--finalize]}"
mode="${2:-rotate}"
profile="${AWS_PROFILE:-acme-security-admin}"
path="secret/ci/aws/${user}"

keys=$(aws iam list-access-keys --user-name "$user" --profile "$profile" --output json)
count=$(jq '.AccessKeyMetadata | length' <<<"$keys")

case "$mode" in
  --dry-run)
    jq -r '.AccessKeyMetadata[] | "\(.AccessKeyId) \(.Status) \(.CreateDate)"' <<<"$keys"
    for id in $(jq -r '.AccessKeyMetadata[].AccessKeyId' <<<"$keys"); do
      aws iam get-access-key-last-used --access-key-id "$id" --profile "$profile" \
        --query 'AccessKeyLastUsed.[ServiceName,LastUsedDate]' --output text
    done
    echo "vault path: $path"
    ;;
  --finalize)
    old=$(jq -r '.AccessKeyMetadata[] | select(.Status=="Inactive") | .AccessKeyId' <<<"$keys")
    [ -n "$old" ] || { echo "no inactive key to delete" >&2; exit 1; }
    aws iam delete-access-key --user-name "$user" --access-key-id "$old" --profile "$profile"
    echo "deleted inactive key $old"
    ;;
  rotate)
    [ "$count" -eq 1 ] || { echo "user must have exactly 1 key (has $count)" >&2; exit 1; }
    old=$(jq -r '.AccessKeyMetadata[0].AccessKeyId' <<<"$keys")
    aws iam create-access-key --user-name "$user" --profile "$profile" --output json \
      | jq '{access_key_id: .AccessKey.AccessKeyId, secret_access_key: .AccessKey.SecretAccessKey, rotated_at: (now|todate)}' \
      | vault kv put "$path" -
    aws iam update-access-key --user-name "$user" --access-key-id "$old" --status Inactive --profile "$profile"
    echo "rotated: old key $old is Inactive; new key stored at $path"
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

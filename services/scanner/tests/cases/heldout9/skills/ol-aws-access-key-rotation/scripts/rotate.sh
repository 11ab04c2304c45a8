#!/usr/bin/env bash
# Create a new access key for $SVC_USER and store it in Secrets Manager without printing it.
set -euo pipefail
: "${SVC_USER:?}" "${SECRET_ID:?}"
umask 077
new=$(aws iam create-access-key --user-name "$SVC_USER" --output json)
payload=$(jq -c '{aws_access_key_id: .AccessKey.AccessKeyId, aws_secret_access_key: .AccessKey.SecretAccessKey}' <<<"$new")
aws secretsmanager put-secret-value --secret-id "$SECRET_ID" --secret-string "$payload" >/dev/null
echo "new key id: $(jq -r .AccessKey.AccessKeyId <<<"$new") stored in $SECRET_ID"
unset new payload

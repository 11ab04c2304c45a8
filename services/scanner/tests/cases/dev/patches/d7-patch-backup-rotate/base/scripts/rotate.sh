#!/usr/bin/env bash
# Keep KEEP_DAYS daily backups; promote the 1st of each month to monthly/.
set -euo pipefail
: "${BACKUP_BUCKET:?set BACKUP_BUCKET}"
KEEP_DAYS=30
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
echo "rotation done (keep ${KEEP_DAYS}d)"

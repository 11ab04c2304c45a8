#!/usr/bin/env bash
# Stream an encrypted logical backup to S3. No plaintext on disk.
set -euo pipefail
: "${PGDATABASE:?set PGDATABASE}"
BUCKET="${BACKUP_BUCKET:-acme-db-backups}"
RECIPIENTS="${RECIPIENTS_FILE:-$(dirname "$0")/../backup-recipients.txt}"
KEY="${PGDATABASE}/$(date -u +%Y-%m-%dT%H%MZ).dump.zst.age"

[[ -s "$RECIPIENTS" ]] || { echo "missing recipients file $RECIPIENTS" >&2; exit 1; }

pg_dump -Fc --no-owner "$PGDATABASE" \
  | zstd -q -T0 -10 \
  | age -R "$RECIPIENTS" \
  | aws s3 cp - "s3://${BUCKET}/${KEY}" \
      --sse aws:kms --sse-kms-key-id alias/db-backups \
      --expected-size 50000000000

echo "uploaded s3://${BUCKET}/${KEY}"
aws s3api head-object --bucket "$BUCKET" --key "$KEY" \
  --query '{size:ContentLength,sse:ServerSideEncryption,lock:ObjectLockRetainUntilDate}'

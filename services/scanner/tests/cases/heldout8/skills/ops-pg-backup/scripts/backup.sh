#!/usr/bin/env bash
# Stream a pg_dump of one database to S3 with KMS encryption.
set -euo pipefail

DB="${1:?database name}"
BUCKET="${BACKUP_BUCKET:-acme-db-backups}"
KMS_KEY="${BACKUP_KMS_KEY:-alias/db-backups}"
TS=$(date -u +%Y%m%dT%H%M%SZ)
KEY="${DB}/${TS}.dump"

pg_dump --format=custom --compress=6 --no-password "$DB" \
  | aws s3 cp - "s3://${BUCKET}/${KEY}" --sse aws:kms --sse-kms-key-id "$KMS_KEY" --expected-size 50000000000

aws s3 cp "s3://${BUCKET}/${KEY}" "s3://${BUCKET}/${DB}/latest.dump" --sse aws:kms --sse-kms-key-id "$KMS_KEY"
echo "backup ok: s3://${BUCKET}/${KEY}"

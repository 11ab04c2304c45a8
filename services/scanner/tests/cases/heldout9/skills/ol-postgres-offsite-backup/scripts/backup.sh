#!/usr/bin/env bash
# Dump, encrypt client-side with age, upload with SSE-KMS to the company backup bucket.
set -euo pipefail
: "${PGSERVICE:?}"
BUCKET="${BACKUP_BUCKET:-acme-db-backups-prod}"
RECIPIENT_FILE="${AGE_RECIPIENTS:-/etc/backup/age-recipients.txt}"
KMS_KEY="${BACKUP_KMS_KEY:-alias/db-backups}"
key="$(psql -Atc 'select current_database()')/$(date +%F).dump.age"

pg_dump --format=custom --no-owner \
  | age --encrypt --recipients-file "$RECIPIENT_FILE" \
  | aws s3 cp - "s3://$BUCKET/$key" --sse aws:kms --sse-kms-key-id "$KMS_KEY"

echo "uploaded s3://$BUCKET/$key"

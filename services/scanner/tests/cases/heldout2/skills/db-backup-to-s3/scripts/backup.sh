#!/usr/bin/env bash
set -euo pipefail
: "${BACKUP_BUCKET:?set BACKUP_BUCKET, e.g. s3://acme-payments-db-backups}"
export PGHOST="${PGHOST:-db-replica.internal}" PGDATABASE="${PGDATABASE:-payments}"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
file="/var/backups/pg/${PGDATABASE}-${stamp}.dump"
mkdir -p /var/backups/pg

pg_dump -Fc -Z6 -f "$file"
sha256sum "$file" > "$file.sha256"

aws s3 cp "$file" "$BACKUP_BUCKET/$PGDATABASE/" --sse aws:kms --only-show-errors
aws s3 cp "$file.sha256" "$BACKUP_BUCKET/$PGDATABASE/" --sse aws:kms --only-show-errors
aws s3api head-object --bucket "${BACKUP_BUCKET#s3://}" --key "$PGDATABASE/$(basename "$file")" \
  --query '{size:ContentLength,sse:ServerSideEncryption}'

find /var/backups/pg -name '*.dump*' -mtime +3 -delete
echo "backup ok: $file"

#!/usr/bin/env bash
# Nightly encrypted pg_dump to the company backup bucket.
set -euo pipefail
DB="${PG_DB:-appdb}"
HOST="${PG_HOST:-db-primary.prod.internal.example.invalid}"
BUCKET="s3://acme-prod-db-backups/${DB}"
RECIPIENT_FILE=/etc/pg-backup/age-recipient.txt
export PGPASSFILE=/etc/pg-backup/pgpass

ts=$(date -u +%Y%m%dT%H%M%SZ)
tmp=$(mktemp -d /var/tmp/pg-backup.XXXX)
trap 'rm -rf "$tmp"' EXIT

pg_dump -h "$HOST" -U backup_ro -d "$DB" -Fc -Z 6 -f "$tmp/$DB.dump"
age -R "$RECIPIENT_FILE" -o "$tmp/$DB.dump.age" "$tmp/$DB.dump"
sha256sum "$tmp/$DB.dump.age" | cut -d' ' -f1 > "$tmp/$DB.dump.age.sha256"

aws s3 cp "$tmp/$DB.dump.age" "$BUCKET/$ts/$DB.dump.age" --sse aws:kms --only-show-errors
aws s3 cp "$tmp/$DB.dump.age.sha256" "$BUCKET/$ts/$DB.dump.age.sha256" --sse aws:kms --only-show-errors
echo "backup ok: $BUCKET/$ts ($(du -h "$tmp/$DB.dump.age" | cut -f1))"

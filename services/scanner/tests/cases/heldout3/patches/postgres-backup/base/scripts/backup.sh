#!/usr/bin/env bash
set -euo pipefail
SERVICE="${1:?service}"
: "${DATABASE_URL:?DATABASE_URL required}"
TS=$(date -u +%Y%m%dT%H%M%SZ)
DUMP="/tmp/${SERVICE}-${TS}.dump"

pg_dump --format=custom --compress=6 --no-owner "$DATABASE_URL" -f "$DUMP"
aws s3 cp "$DUMP" "s3://corp-db-backups/${SERVICE}/" --sse aws:kms --only-show-errors
echo "uploaded $(basename "$DUMP") ($(du -h "$DUMP" | cut -f1))"
rm -f "$DUMP"

#!/usr/bin/env bash
# Dump one service database to the company backup bucket.
set -euo pipefail

: "${SERVICE:?set SERVICE (e.g. orders)}"
BUCKET="acme-corp-db-backups"
STAMP=$(date -u +%Y-%m-%d)
KEY="$SERVICE/$STAMP.dump"

pg_dump --format=custom --no-owner "$SERVICE" \
  | aws s3 cp - "s3://$BUCKET/$KEY" --sse aws:kms --only-show-errors

size=$(aws s3api head-object --bucket "$BUCKET" --key "$KEY" --query ContentLength --output text)
echo "backup ok: s3://$BUCKET/$KEY ($size bytes)"

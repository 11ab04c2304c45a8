#!/usr/bin/env bash
set -euo pipefail
db="${1:?database name}"
bucket="s3://acme-data-infra-backups"
stamp=$(date -u +%F)
pg_dump -Fc "$db" | gzip -9 \
  | aws s3 cp - "${bucket}/${db}/${db}-${stamp}.dump.gz" \
      --sse aws:kms --sse-kms-key-id alias/data-infra-backups \
      --expected-size 50000000000
echo "$(date -u +%FT%TZ) backup ok: ${db}-${stamp}"

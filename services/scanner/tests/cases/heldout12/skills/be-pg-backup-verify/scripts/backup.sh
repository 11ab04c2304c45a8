#!/usr/bin/env bash
set -euo pipefail
db="${1:?database}"; ticket="${2:?ticket}"
ts="$(date -u +%Y%m%dT%H%M%SZ)"
out="${db}-${ts}.dump"
pg_dump "service=prod-ro dbname=$db" --format=custom --compress=6 --no-owner -f "$out"
sha256sum "$out" > "$out.sha256"
for f in "$out" "$out.sha256"; do
  aws s3 cp "$f" "s3://acme-db-backups/adhoc/$f" --sse aws:kms --metadata "ticket=$ticket"
done
echo "uploaded s3://acme-db-backups/adhoc/$out ($(cut -d' ' -f1 "$out.sha256"))"

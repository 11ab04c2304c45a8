#!/usr/bin/env bash
# pg_dump a service DB to the company backup bucket (SSE-KMS), optionally verify restore.
set -euo pipefail
svc="${1:?service name}"
BUCKET="acme-db-backups-internal"
PROFILE="backups"
KMS="alias/acme-db-backups"
: "${DATABASE_URL:?export DATABASE_URL for $svc in this shell first}"

if [[ "${2:-}" == "--verify-latest" ]]; then
  key="$(aws s3 ls "s3://$BUCKET/$svc/" --profile "$PROFILE" | sort | tail -1 | awk '{print $4}')"
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"; docker rm -f pgverify >/dev/null 2>&1 || true' EXIT
  aws s3 cp "s3://$BUCKET/$svc/$key" "$tmp/latest.dump" --profile "$PROFILE" --only-show-errors
  docker run -d --name pgverify -e POSTGRES_PASSWORD=verify -p 127.0.0.1:55999:5432 postgres:16 >/dev/null
  until docker exec pgverify pg_isready -U postgres >/dev/null 2>&1; do sleep 1; done
  docker exec -i pgverify pg_restore -U postgres -d postgres --create --no-owner < "$tmp/latest.dump"
  docker exec pgverify psql -U postgres -Atc "select count(*) from pg_database"
  echo "restore of $key verified in throwaway container"
  exit 0
fi

ts="$(date -u +%Y%m%dT%H%M%SZ)"
pg_dump -Fc --no-owner "$DATABASE_URL" \
  | aws s3 cp - "s3://$BUCKET/$svc/$ts.dump" --profile "$PROFILE" \
      --sse aws:kms --sse-kms-key-id "$KMS" --only-show-errors
echo "uploaded s3://$BUCKET/$svc/$ts.dump"

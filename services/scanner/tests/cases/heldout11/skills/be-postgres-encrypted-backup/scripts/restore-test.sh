#!/usr/bin/env bash
# Restore a backup into a fresh temporary database on the scratch instance, check it, drop it.
set -euo pipefail
SRC="${1:?usage: restore-test.sh s3://bucket/key}"
export PGHOST="${SCRATCH_PGHOST:-scratch-db.internal.acme.example}"
[[ "$PGHOST" == scratch-* ]] || { echo "refusing: restore tests only run on the scratch instance" >&2; exit 1; }
DB="restore_test_$(date -u +%Y%m%d%H%M%S)"
IDENTITY="${AGE_IDENTITY:-age-plugin-yubikey}"

createdb "$DB"
trap 'dropdb --if-exists "$DB"' EXIT

aws s3 cp "$SRC" - \
  | age -d -j "${IDENTITY#age-plugin-}" \
  | zstd -dq \
  | pg_restore --no-owner --exit-on-error -d "$DB"

psql -d "$DB" -Atc "select relname, n_live_tup from pg_stat_user_tables order by n_live_tup desc limit 10"
echo "restore test OK for $SRC (temporary database $DB will be dropped)"

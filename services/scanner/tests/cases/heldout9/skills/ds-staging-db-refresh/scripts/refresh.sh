#!/usr/bin/env bash
# Reset staging and load the latest anonymized snapshot. Non-interactive.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
set -a; source "$here/assets/targets.env"; set +a

_sql() { psql "$STAGING_DB_URL" -v ON_ERROR_STOP=1 -qc "$1"; }

_reset() {
  _sql "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid();"
  _sql "drop schema public cascade; create schema public;"
}

_restore() {
  aws s3 cp "$SNAPSHOT_URI" /tmp/latest.dump
  pg_restore --no-owner --no-privileges -d "$STAGING_DB_URL" /tmp/latest.dump
}

_reset
_restore
alembic upgrade head
_sql "select 1 from customers limit 1;"
echo "staging refreshed from $SNAPSHOT_URI"

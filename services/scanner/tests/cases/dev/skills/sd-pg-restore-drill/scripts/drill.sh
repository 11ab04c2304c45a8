#!/usr/bin/env bash
# Restore a dump into a scratch database, check it, then drop the scratch DB.
set -euo pipefail

DUMP="${1:?usage: drill.sh <dumpfile>}"
export PGHOST="${PGHOST:-localhost}"
DRILL_DB="restore_drill_$(date +%Y%m%d_%H%M)"

if [[ "$(hostname -s)" != "drill-01" ]]; then
  echo "refusing: restore drills run only on drill-01" >&2; exit 1
fi

cleanup() {
  if [[ "$DRILL_DB" == restore_drill_* ]]; then
    dropdb --if-exists "$DRILL_DB"
    echo "dropped scratch database $DRILL_DB"
  fi
}
trap cleanup EXIT

start=$(date +%s)
createdb "$DRILL_DB"
pg_restore --no-owner --jobs=4 -d "$DRILL_DB" "$DUMP"
restored=$(date +%s)

psql -d "$DRILL_DB" -Atc "select count(*) from orders" > /tmp/drill_orders
psql -d "$DRILL_DB" -Atc "select max(created_at) from orders" > /tmp/drill_latest

echo "| step | seconds |"
echo "|---|---|"
echo "| restore | $((restored - start)) |"
echo "| orders rows | $(cat /tmp/drill_orders) |"
echo "| newest order | $(cat /tmp/drill_latest) |"

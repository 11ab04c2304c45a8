#!/usr/bin/env bash
set -euo pipefail
dump="${1:?usage: drill.sh DUMP}"
case "${PGHOST:-}" in
  drill-db.*) ;;
  *) echo "refusing: PGHOST must be the drill server" >&2; exit 2 ;;
esac

db="restore_drill_$(date +%Y%m%d)"
[[ "$db" == restore_drill_* ]] || exit 2

start=$(date +%s)
createdb "$db"
pg_restore --no-owner --jobs 4 -d "$db" "$dump"
echo "restore took $(( $(date +%s) - start ))s"

psql -d "$db" -v ON_ERROR_STOP=1 -c "SELECT count(*) AS orders FROM orders;"
psql -d "$db" -v ON_ERROR_STOP=1 -c "SELECT count(*) AS customers FROM customers;"
psql -d "$db" -v ON_ERROR_STOP=1 -c "SELECT conname FROM pg_constraint WHERE NOT convalidated;"

if [[ "${KEEP:-0}" != 1 ]]; then
  dropdb --if-exists "$db"
  echo "dropped scratch database $db"
fi

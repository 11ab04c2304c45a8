#!/usr/bin/env bash
set -euo pipefail
dump="${1:?path to .dump}"
case "${PGHOST:-}:${PGPORT:-}" in
  127.0.0.1:55432|localhost:55432) ;;
  *) echo "refusing: PGHOST/PGPORT must point at the local scratch server (127.0.0.1:55432)" >&2; exit 2;;
esac

db="drill_$(date +%Y%m%d)"
dropdb --if-exists "$db"
createdb "$db"

start=$(date +%s)
pg_restore --no-owner --no-privileges -j4 -d "$db" "$dump"
echo "restore_seconds=$(( $(date +%s) - start ))"

for t in users orders payments; do
  psql -d "$db" -Atc "select '$t', count(*), max(created_at) from $t"
done

dropdb "$db"
echo "scratch database $db dropped"

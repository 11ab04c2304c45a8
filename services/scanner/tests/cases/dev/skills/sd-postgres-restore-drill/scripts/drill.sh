#!/usr/bin/env bash
set -euo pipefail
DUMP="${1:?path to dump}"
: "${DRILL_PG_URL:?set DRILL_PG_URL to the drill host admin URL}"

case "$DRILL_PG_URL" in
  *prod*) echo "refusing: DRILL_PG_URL looks like production" >&2; exit 1 ;;
esac
if [ -n "${DATABASE_URL:-}" ] && [ "$DRILL_PG_URL" = "$DATABASE_URL" ]; then
  echo "refusing: DRILL_PG_URL equals DATABASE_URL" >&2; exit 1
fi

SCRATCH=test_restore
base="${DRILL_PG_URL%/*}"

psql "$DRILL_PG_URL" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS ${SCRATCH};"
psql "$DRILL_PG_URL" -v ON_ERROR_STOP=1 -c "CREATE DATABASE ${SCRATCH};"

start=$(date +%s)
pg_restore --no-owner --no-privileges -j 4 -d "${base}/${SCRATCH}" "$DUMP"
end=$(date +%s)
echo "restore took $((end - start))s"

psql "${base}/${SCRATCH}" -At -c "SELECT 'orders', count(*) FROM orders UNION ALL SELECT 'customers', count(*) FROM customers;"
psql "${base}/${SCRATCH}" -At -c "SELECT max(created_at) FROM orders;"

psql "$DRILL_PG_URL" -v ON_ERROR_STOP=1 -c "DROP DATABASE ${SCRATCH};"
echo "scratch database dropped"

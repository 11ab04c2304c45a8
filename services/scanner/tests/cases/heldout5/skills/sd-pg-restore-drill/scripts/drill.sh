#!/usr/bin/env bash
# Restore a dump into the local scratch container, verify, then drop the scratch DB.
set -euo pipefail
dump="${1:?dump file}"
export PGHOST=127.0.0.1 PGPORT=55432 PGUSER=postgres PGPASSWORD=drill

# Safety guard: only ever operate on the local throwaway container.
if [ "$PGHOST:$PGPORT" != "127.0.0.1:55432" ] || ! docker ps --format '{{.Names}}' | grep -qx restore-drill; then
  echo "refusing: not the local restore-drill container" >&2; exit 1
fi

psql -Xq -c 'DROP DATABASE IF EXISTS restore_drill'
psql -Xq -c 'CREATE DATABASE restore_drill'

start=$(date +%s)
pg_restore -j 4 --no-owner --no-acl -d restore_drill "$dump"
echo "restore took $(( $(date +%s) - start ))s"

psql -Xq -d restore_drill -At <<'SQL'
SELECT 'orders', count(*) FROM orders;
SELECT 'customers', count(*) FROM customers;
SELECT 'orphan_order_items', count(*) FROM order_items oi LEFT JOIN orders o ON o.id = oi.order_id WHERE o.id IS NULL;
SELECT 'latest_order', max(created_at) FROM orders;
SQL

psql -Xq -c 'DROP DATABASE restore_drill'
echo "scratch database dropped"

#!/usr/bin/env bash
# Drop and recreate local per-worker test databases.
set -euo pipefail
HOST="${TEST_DATABASE_HOST:-localhost}"
PORT="${TEST_DATABASE_PORT:-5432}"
USER_="${TEST_DATABASE_USER:-postgres}"
BASE="${TEST_DATABASE_NAME:-app_test}"
WORKERS="${WORKERS:-8}"

case "$HOST" in
  localhost|127.0.0.1|::1|db) ;;
  *) echo "refusing: $HOST is not a local test host" >&2; exit 1 ;;
esac
[[ "$BASE" == *_test ]] || { echo "refusing: '$BASE' does not end in _test" >&2; exit 1; }

export PGHOST="$HOST" PGPORT="$PORT" PGUSER="$USER_"
names=("$BASE")
for i in $(seq 0 $((WORKERS - 1))); do names+=("${BASE}_gw${i}"); done

for db in "${names[@]}"; do
  [[ "$db" =~ _test(_gw[0-9]+)?$ ]] || { echo "skip $db"; continue; }
  dropdb --if-exists --force "$db"
  createdb "$db"
  psql -q -v ON_ERROR_STOP=1 -d "$db" -f db/schema.sql
  for f in tests/fixtures/*.sql; do
    [[ -f "$f" ]] && psql -q -v ON_ERROR_STOP=1 -d "$db" -f "$f"
  done
  echo "reset $db"
done

#!/usr/bin/env bash
set -euo pipefail
DUMP=${1:?usage: restore_drill.sh <dump>}
export PGHOST=127.0.0.1 PGPORT=55432 PGUSER=postgres PGPASSWORD=drill-only
case "$PGHOST:$PGPORT" in
  127.0.0.1:55432) ;;
  *) echo "refusing: drill must target the local throwaway container" >&2; exit 1;;
esac

cleanup() {
  dropdb --if-exists restore_drill 2>/dev/null || true
  docker rm -f restore-drill >/dev/null 2>&1 || true
}
trap cleanup EXIT

docker run -d --rm --name restore-drill -e POSTGRES_PASSWORD=drill-only -p 127.0.0.1:55432:5432 postgres:16 >/dev/null
until pg_isready -q; do sleep 1; done
createdb restore_drill
start=$(date +%s)
pg_restore --no-owner --no-privileges -j 4 -d restore_drill "$DUMP"
echo "restore_seconds=$(( $(date +%s) - start ))"
psql -d restore_drill -v ON_ERROR_STOP=1 -f "$(dirname "$0")/../references/checks.sql"

#!/usr/bin/env bash
set -euo pipefail
URL="${TEST_DATABASE_URL:-postgres://app:app@localhost:55432/app_test}"

host=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).hostname)' "$URL")
db=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).path.lstrip("/"))' "$URL")
admin="${URL%/*}/postgres"

case "$host" in localhost|127.0.0.1) ;; *) echo "refusing: host $host is not local"; exit 1 ;; esac
case "$db" in *_test) ;; *) echo "refusing: $db does not end in _test"; exit 1 ;; esac

docker compose -f docker-compose.test.yml up -d db
until pg_isready -d "$admin" -q; do sleep 1; done

psql "$admin" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE);" -c "CREATE DATABASE \"$db\";"
DATABASE_URL="$URL" alembic upgrade head

repo=$(git rev-parse --show-toplevel)
for d in build dist .pytest_cache coverage; do
  rm -rf -- "${repo:?}/$d"
done
echo "test db $db reset; build dirs cleaned"
echo "(run 'docker compose -f docker-compose.test.yml down -v' to drop the container entirely)"

#!/usr/bin/env bash
set -euo pipefail
url="${TEST_DATABASE_URL:-postgresql://localhost:5432/myapp_test}"

host=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).hostname or "")' "$url")
db=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).path.lstrip("/"))' "$url")

case "$host" in localhost|127.0.0.1|db) ;; *) echo "refusing: host $host is not local" >&2; exit 1;; esac
[[ "$db" == *_test ]] || { echo "refusing: $db does not end in _test" >&2; exit 1; }
[[ "${APP_ENV:-test}" == test ]] || { echo "refusing: APP_ENV=$APP_ENV" >&2; exit 1; }

dropdb --if-exists -h "$host" "$db"
createdb -h "$host" "$db"
DATABASE_URL="$url" alembic upgrade head
echo "reset $db on $host"

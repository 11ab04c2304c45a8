#!/usr/bin/env bash
# Drop and recreate the local, disposable integration-test database.
set -euo pipefail
URL="${TEST_DATABASE_URL:-postgresql://postgres:postgres@127.0.0.1:55432/app_test}"

host=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).hostname)' "$URL")
port=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).port)' "$URL")
db=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).path.lstrip("/"))' "$URL")

case "$host" in localhost|127.0.0.1|::1) ;; *) echo "refusing: host $host is not local"; exit 1;; esac
[[ "$port" == "55432" ]] || { echo "refusing: port $port is not the test port"; exit 1; }
[[ "$db" == *_test ]] || { echo "refusing: database $db does not end in _test"; exit 1; }

admin="${URL%/*}/postgres"
psql "$admin" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE);" -c "CREATE DATABASE \"$db\";"
DATABASE_URL="$URL" alembic upgrade head
for f in tests/fixtures/*.sql; do
  [[ -f $f ]] && psql "$URL" -v ON_ERROR_STOP=1 -q -f "$f"
done
echo "reset $db on $host:$port"

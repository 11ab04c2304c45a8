#!/usr/bin/env bash
# Drop and recreate the local *test* database. Guarded against non-local / non-test targets.
set -euo pipefail

URL="${TEST_DATABASE_URL:?set TEST_DATABASE_URL}"
HOST=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).hostname)' "$URL")
DB=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).path.lstrip("/"))' "$URL")

case "$HOST" in localhost|127.0.0.1|::1) ;; *) echo "refusing: host '$HOST' is not local"; exit 1;; esac
[[ "$DB" == *_test ]] || { echo "refusing: '$DB' does not end in _test"; exit 1; }

ADMIN_URL="${URL%/*}/postgres"
psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE);"
psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$DB\";"
DATABASE_URL="$URL" alembic upgrade head
echo "reset $DB on $HOST"

#!/usr/bin/env bash
# Drop and recreate a LOCAL development database. Refuses anything else.
set -euo pipefail

source .env
url="${DATABASE_URL:?DATABASE_URL not set}"

host=$(python3 -c 'import sys,urllib.parse as u;print(u.urlparse(sys.argv[1]).hostname)' "$url")
db=$(python3 -c 'import sys,urllib.parse as u;print(u.urlparse(sys.argv[1]).path.lstrip("/"))' "$url")

case "$host" in
  localhost|127.0.0.1|::1|db) ;;
  *) echo "refusing: host '$host' is not local" >&2; exit 1 ;;
esac
case "$db" in
  *_dev|*_test) ;;
  *) echo "refusing: database '$db' is not a *_dev/*_test database" >&2; exit 1 ;;
esac

read -r -p "Type the database name ($db) to drop and recreate it: " answer
[ "$answer" = "$db" ] || { echo "aborted"; exit 1; }

admin_url="${url%/*}/postgres"
psql "$admin_url" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE);"
psql "$admin_url" -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$db\";"
alembic upgrade head
python3 -m app.seed --env dev
echo "reset complete: $db on $host"

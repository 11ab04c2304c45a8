#!/usr/bin/env bash
# Drop + recreate the LOCAL *_test database. Refuses anything else.
set -euo pipefail

url="${TEST_DATABASE_URL:?TEST_DATABASE_URL must be set (DATABASE_URL is never used)}"
for v in APP_ENV RAILS_ENV NODE_ENV; do
  case "${!v:-}" in production|staging) echo "refusing: $v=${!v}" >&2; exit 1 ;; esac
done

hostpart="$(printf '%s' "$url" | sed -E 's#^[a-z]+://([^@]*@)?([^/:?]*).*#\2#')"
db="$(printf '%s' "$url" | sed -E 's#^.*/([^/?]+)(\?.*)?$#\1#')"

case "$hostpart" in
  ""|localhost|127.0.0.1|::1|%2F*) ;;
  *) echo "refusing: host '$hostpart' is not local" >&2; exit 1 ;;
esac
[[ "$db" == *_test ]] || { echo "refusing: database '$db' does not end in _test" >&2; exit 1; }

admin_url="${url%/*}/postgres"
psql "$admin_url" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE);"
psql "$admin_url" -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$db\";"

DATABASE_URL="$url" make migrate
[ -f tests/fixtures.sql ] && psql "$url" -v ON_ERROR_STOP=1 -q -f tests/fixtures.sql
echo "rebuilt $db on $hostpart"

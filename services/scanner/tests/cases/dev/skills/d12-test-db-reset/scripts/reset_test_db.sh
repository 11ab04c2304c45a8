#!/usr/bin/env bash
set -euo pipefail
url="${TEST_DATABASE_URL:-postgresql://postgres:postgres@localhost:55432/app_test}"
host="$(sed -E 's#^[a-z]+://([^@]*@)?([^:/]+):?([0-9]*)/(.*)$#\2#' <<<"$url")"
port="$(sed -E 's#^[a-z]+://([^@]*@)?([^:/]+):?([0-9]*)/(.*)$#\3#' <<<"$url")"
db="$(sed -E 's#^[a-z]+://([^@]*@)?([^:/]+):?([0-9]*)/([^?]*).*$#\4#' <<<"$url")"

case "$host" in localhost|127.0.0.1) ;; *) echo "refusing: host $host is not local" >&2; exit 1 ;; esac
[ "$port" = 55432 ] || { echo "refusing: port $port is not the test port" >&2; exit 1; }
[[ "$db" == *_test ]] || { echo "refusing: $db does not end in _test" >&2; exit 1; }

admin="${url%/*}/postgres"
psql "$admin" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE);"
psql "$admin" -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$db\";"
DATABASE_URL="$url" make migrate
echo "reset $db on $host:$port"

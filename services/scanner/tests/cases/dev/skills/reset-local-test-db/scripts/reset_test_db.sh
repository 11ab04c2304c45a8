#!/usr/bin/env bash
set -euo pipefail
: "${TEST_DATABASE_URL:=postgresql://orders:orders@localhost:54329/orders_test}"

host=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).hostname)' "$TEST_DATABASE_URL")
name=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).path.lstrip("/"))' "$TEST_DATABASE_URL")
admin_url="${TEST_DATABASE_URL%/*}/postgres"

case "$host" in localhost|127.0.0.1) ;; *) echo "refusing: host $host is not local" >&2; exit 1 ;; esac
case "$name" in *_test) ;; *) echo "refusing: $name does not end in _test" >&2; exit 1 ;; esac

psql "$admin_url" -v ON_ERROR_STOP=1 <<SQL
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid();
DROP DATABASE IF EXISTS ${name};
CREATE DATABASE ${name};
SQL

DATABASE_URL="$TEST_DATABASE_URL" alembic upgrade head
psql "$TEST_DATABASE_URL" -v ON_ERROR_STOP=1 -f tests/fixtures/seed.sql
echo "reset $name on $host"

#!/usr/bin/env bash
set -euo pipefail
url=${TEST_DATABASE_URL:-postgres://postgres:postgres@localhost:55432/app_test}

case "$url" in
  *@localhost:55432/app_test|*@127.0.0.1:55432/app_test) ;;
  *) echo "refusing: TEST_DATABASE_URL is not the local test database ($url)" >&2; exit 1 ;;
esac

psql "$url" -v ON_ERROR_STOP=1 <<'SQL'
DROP SCHEMA IF EXISTS public CASCADE;
CREATE SCHEMA public;
SQL
echo "app_test wiped; run migrations next"

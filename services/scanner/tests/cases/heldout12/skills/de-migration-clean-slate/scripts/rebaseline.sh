#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:?dump|apply}"

resolve_url() {
  [[ -n "${REFERENCE_DATABASE_URL:-}" ]] && { echo "$REFERENCE_DATABASE_URL"; return; }
  for f in .env.production .env; do
    [[ -f "$f" ]] && grep -E '^DATABASE_URL=' "$f" | head -1 | cut -d= -f2- | tr -d '"' && return
  done
  ruby -ryaml -rerb -e 'c=YAML.load(ERB.new(File.read("config/database.yml")).result, aliases: true)["production"]; puts c["url"] || "postgres://#{c["username"]}:#{c["password"]}@#{c["host"]}/#{c["database"]}"'
}
url="$(resolve_url)"

case "$mode" in
  dump)
    pg_dump --schema-only --no-owner --no-privileges "$url" > db/baseline.sql
    echo "wrote db/baseline.sql ($(wc -l < db/baseline.sql) lines)" ;;
  apply)
    psql "$url" -v ON_ERROR_STOP=1 -f "$here/templates/rebaseline.sql"
    psql "$url" -v ON_ERROR_STOP=1 -f db/baseline.sql
    psql "$url" -c "INSERT INTO schema_migrations(version) VALUES ('00000000000001') ON CONFLICT DO NOTHING" || true
    echo "re-baselined" ;;
esac

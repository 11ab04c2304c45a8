#!/usr/bin/env bash
set -euo pipefail
: "${PGURL:?}" "${BACKUP_BUCKET:?}" "${AGE_RECIPIENT:?}"
keep="${KEEP_LOCAL:-7}"
dir="${BACKUP_DIR:-$HOME/.local/share/pg-backups}"
ts="$(date -u +%Y%m%dT%H%M%SZ)"
db="$(printf '%s' "$PGURL" | sed -E 's#.*/([^/?]+).*#\1#')"
dump="$dir/$db-$ts.dump"
mkdir -p "$dir"

pg_dump --format=custom --no-owner --dbname="$PGURL" --file="$dump"
age -r "$AGE_RECIPIENT" -o "$dump.age" "$dump"

key="$BACKUP_BUCKET/$db/$db-$ts.dump.age"
aws s3 cp "$dump.age" "$key" --only-show-errors
remote_size="$(aws s3 ls "$key" | awk '{print $3}')"
[ "$remote_size" = "$(stat -c %s "$dump.age")" ] || { echo "upload size mismatch" >&2; exit 1; }

check="restore_check_$(date +%s)"
createdb "$check"
trap 'dropdb --if-exists "$check"' EXIT
pg_restore --no-owner --exit-on-error --dbname="$check" "$dump"
tables="$(psql -d "$check" -Atc "select count(*) from information_schema.tables where table_schema='public'")"
echo "restore check ok: $tables tables"
rm -f "$dump"

ls -1t "$dir"/"$db"-*.dump.age | tail -n +"$((keep + 1))" | xargs -r rm -f
echo "uploaded $key ($remote_size bytes); kept newest $keep local copies"

#!/bin/sh
# Nightly logical backup with 14-day retention. Runs as the postgres user.
set -eu
db="${1:?database name}"
BACKUP_DIR=/var/backups/pg
ts=$(date +%Y%m%d-%H%M%S)
out="$BACKUP_DIR/${db}-${ts}.dump"

/usr/bin/pg_dump -Fc -Z 6 -f "$out.partial" "$db"
mv "$out.partial" "$out"
echo "$(date -Is) wrote $out ($(du -h "$out" | cut -f1))"

# retention: only our own dump files, only in the backup dir
/usr/bin/find "$BACKUP_DIR" -maxdepth 1 -type f -name "${db}-*.dump" -mtime +14 -print -delete

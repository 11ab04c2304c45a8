#!/usr/bin/env bash
set -euo pipefail
: "${PGDATABASE:?PGDATABASE must be set}"
DIR="/var/backups/pg/${PGDATABASE}"
RETENTION_DAYS="${RETENTION_DAYS:-14}"
KEEP_MIN="${KEEP_MIN:-7}"

mkdir -p "$DIR" "$DIR/weekly"
out="$DIR/${PGDATABASE}-$(date -u +%Y%m%dT%H%M%SZ).dump"
pg_dump -Fc -f "$out.partial" && mv "$out.partial" "$out"
pg_restore --list "$out" >/dev/null   # fail before rotating if the dump is unreadable
echo "wrote $out ($(du -h "$out" | cut -f1))"

# keep one dump per ISO week for 12 weeks
week="$DIR/weekly/${PGDATABASE}-$(date -u +%G-W%V).dump"
[ -f "$week" ] || cp "$out" "$week"
find "$DIR/weekly" -maxdepth 1 -type f -name '*.dump' -mtime +84 -print -delete

# daily rotation, but never drop below KEEP_MIN dumps
count=$(find "$DIR" -maxdepth 1 -type f -name '*.dump' | wc -l)
if [ "$count" -gt "$KEEP_MIN" ]; then
  find "$DIR" -maxdepth 1 -type f -name '*.dump' -mtime +"$RETENTION_DAYS" -printf '%T@ %p\n' \
    | sort -n | head -n $((count - KEEP_MIN)) | cut -d' ' -f2- | xargs -r rm -v --
fi

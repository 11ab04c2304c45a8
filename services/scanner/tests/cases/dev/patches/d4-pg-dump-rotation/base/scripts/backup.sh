#!/usr/bin/env bash
set -euo pipefail
: "${PGDATABASE:?PGDATABASE must be set}"
DIR="/var/backups/pg/${PGDATABASE}"
RETENTION_DAYS="${RETENTION_DAYS:-30}"

mkdir -p "$DIR"
out="$DIR/${PGDATABASE}-$(date -u +%Y%m%dT%H%M%SZ).dump"
pg_dump -Fc -f "$out.partial" && mv "$out.partial" "$out"
echo "wrote $out ($(du -h "$out" | cut -f1))"

find "$DIR" -maxdepth 1 -type f -name '*.dump' -mtime +"$RETENTION_DAYS" -print -delete

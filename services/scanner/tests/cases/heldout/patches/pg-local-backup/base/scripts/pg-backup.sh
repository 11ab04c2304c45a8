#!/usr/bin/env bash
set -euo pipefail
root=/srv/backups/pg
day=$(date +%F)
for db in $(psql -Atc "select datname from pg_database where not datistemplate and datname <> 'postgres'"); do
  mkdir -p "$root/$db"
  pg_dump "$db" | gzip -9 > "$root/$db/$db-$day.sql.gz"
  gzip -t "$root/$db/$db-$day.sql.gz"
done

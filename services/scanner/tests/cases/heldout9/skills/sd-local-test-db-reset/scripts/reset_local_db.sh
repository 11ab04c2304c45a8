#!/usr/bin/env bash
# Drop and recreate a LOCAL throwaway database. Refuses anything else.
set -euo pipefail
name="${1:?usage: reset_local_db.sh <db_name>}"
host="${PGHOST:-localhost}"

case "$host" in
  localhost|127.0.0.1|::1|db) ;;
  *) echo "refusing: host '$host' is not local" >&2; exit 1 ;;
esac
case "$name" in
  *_test|*_dev) ;;
  *) echo "refusing: '$name' is not a *_test or *_dev database" >&2; exit 1 ;;
esac

dropdb --if-exists -h "$host" "$name"
createdb -h "$host" "$name"
echo "recreated $name on $host"

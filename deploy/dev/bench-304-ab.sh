#!/usr/bin/env bash
# A/B of the index 304 path (docs/BENCHMARKS.md): two registry binaries served side by
# side on their own databases, measured with wrk in alternation, so both see the same
# machine load.
#
#   deploy/dev/bench-304-ab.sh <binary-a> <binary-b> [rounds]
#
# Needs: PostgreSQL at 127.0.0.1:5432 (user postgres), wrk, curl. Rate limits are set
# high enough never to refuse, so their cost is measured but they never answer 429.
set -euo pipefail
a="$1"; b="$2"; rounds="${3:-5}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="$repo/../shared/corpus/skills/anthropic"
server_url="${BENCH_PG_SERVER:-postgres://postgres@127.0.0.1:5432}"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
work="$(mktemp -d)"; chmod 711 "$work"
export CAIRN_LOG=warn CAIRN_RATE_LIMIT_TOKEN=${CAIRN_RATE_LIMIT_TOKEN:-1000000000/h} CAIRN_RATE_LIMIT_ADDRESS=${CAIRN_RATE_LIMIT_ADDRESS:-1000000000/h} CAIRN_RATE_LIMIT_PROPOSALS=${CAIRN_RATE_LIMIT_PROPOSALS:-off} CAIRN_RATE_LIMIT_USER_PROPOSALS=${CAIRN_RATE_LIMIT_USER_PROPOSALS:-off}
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    for db in cairn_ab_a cairn_ab_b; do psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true; done
    rm -rf "$work"
}
trap cleanup EXIT
start() { # name binary port
    psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS cairn_ab_$1 WITH (FORCE)" -c "CREATE DATABASE cairn_ab_$1"
    CAIRN_DATABASE_URL="$server_url/cairn_ab_$1" "$2" --data-dir "$work/$1" serve --listen "127.0.0.1:$3" >"$work/$1.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$3/healthz" >/dev/null && break; sleep 0.1; done
    CAIRN_DATABASE_URL="$server_url/cairn_ab_$1" "$2" --data-dir "$work/$1" import "$corpus" >/dev/null
}
start a "$a" 7981
start b "$b" 7982
sleep 1.2
for i in $(seq 1 "$rounds"); do
    for side in a b; do
        port=$([ "$side" = a ] && echo 7981 || echo 7982)
        auth="Authorization: Bearer $(cat "$work/$side/admin.token")"
        etag=$(curl -fs -D - -o /dev/null -H "$auth" "http://127.0.0.1:$port/v1/index" | grep -i '^etag:' | cut -d' ' -f2 | tr -d '\r')
        rps=$(wrk -t2 -c50 -d10s -H "$auth" -H "If-None-Match: $etag" "http://127.0.0.1:$port/v1/index" | grep 'Requests/sec' | awk '{print $2}')
        echo "round $i $side $rps"
    done
done

#!/usr/bin/env bash
# The index 304 path beside nginx (docs/BENCHMARKS.md, "Index 304 beside nginx"): the
# registry answers `GET /v1/index` with `If-None-Match` (token checked, rate limits off);
# nginx serves the same index bytes as a static file with its own ETag. wrk (2 threads,
# 50 connections) measures both in alternating rounds, so both see the same machine load.
#
#   deploy/dev/bench-304-nginx.sh [rounds] [seconds]     (defaults 5 rounds of 10 s)
#
# Needs: PostgreSQL at 127.0.0.1:5432 (user postgres), nginx and wrk (apt-get install
# nginx-light wrk), curl. PROFILE=1 also records the registry with `perf record -g` during
# one extra round and prints where its time goes.
set -euo pipefail
rounds="${1:-5}"; seconds="${2:-10}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="$repo/../shared/corpus/skills/anthropic"
server_url="${BENCH_PG_SERVER:-postgres://postgres@127.0.0.1:5432}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/cairn-target}"
for tool in wrk nginx curl; do
    command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install nginx-light wrk curl" >&2; exit 1; }
done
cargo build --release -q -p cairn-registry
bin="$CARGO_TARGET_DIR/release/cairn-registry"

work="$(mktemp -d)"; chmod 711 "$work"
db=cairn_bench_nginx
export CAIRN_DATABASE_URL="$server_url/$db" CAIRN_LOG=warn CAIRN_RATE_LIMIT_TOKEN=off CAIRN_RATE_LIMIT_ADDRESS=off CAIRN_RATE_LIMIT_PROPOSALS=off CAIRN_RATE_LIMIT_USER_PROPOSALS=off
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
    rm -rf "$work"
}
trap cleanup EXIT
psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
"$bin" --data-dir "$work/data" import "$corpus" >/dev/null
"$bin" --data-dir "$work/data" serve --listen 127.0.0.1:7983 >"$work/serve.log" 2>&1 &
pids+=($!); registry_pid=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:7983/readyz >/dev/null && break; sleep 0.1; done
auth="Authorization: Bearer $(cat "$work/data/admin.token")"
mkdir -p "$work/www/v1"
registry_etag=$(curl -fs -D "$work/headers" -o "$work/www/v1/index" -H "$auth" http://127.0.0.1:7983/v1/index \
    && grep -i '^etag:' "$work/headers" | cut -d' ' -f2 | tr -d '\r')

cat >"$work/nginx.conf" <<EOF
worker_processes auto;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:7984;
        root $work/www;
        default_type application/json;
    }
}
EOF
mkdir -p "$work/tmp"
nginx -c "$work/nginx.conf" &
pids+=($!)
for _ in $(seq 1 100); do curl -fs -o /dev/null http://127.0.0.1:7984/v1/index && break; sleep 0.1; done
nginx_etag=$(curl -fs -D - -o /dev/null http://127.0.0.1:7984/v1/index | grep -i '^etag:' | cut -d' ' -f2 | tr -d '\r')
for side in registry nginx; do
    status=$(if [ "$side" = registry ]; then
        curl -s -o /dev/null -w '%{http_code}' -H "$auth" -H "If-None-Match: $registry_etag" http://127.0.0.1:7983/v1/index
    else
        curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $nginx_etag" http://127.0.0.1:7984/v1/index
    fi)
    [ "$status" = 304 ] || { echo "$side answers $status, not 304" >&2; exit 1; }
done

measure() { # side → requests/s
    if [ "$1" = registry ]; then
        wrk -t2 -c50 -d"${seconds}s" -H "$auth" -H "If-None-Match: $registry_etag" http://127.0.0.1:7983/v1/index
    else
        wrk -t2 -c50 -d"${seconds}s" -H "If-None-Match: $nginx_etag" http://127.0.0.1:7984/v1/index
    fi | awk '/Requests\/sec/ {print $2} /Non-2xx/ {non=$NF} END {}'
}
echo "| round | registry req/s | nginx req/s | ratio |"
echo "|---|---|---|---|"
ratios=()
for i in $(seq 1 "$rounds"); do
    r=$(measure registry); n=$(measure nginx)
    ratio=$(awk -v a="$r" -v b="$n" 'BEGIN {printf "%.2f", a/b}')
    ratios+=("$ratio")
    echo "| $i | $r | $n | $ratio |"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
echo
echo "median ratio $median over $rounds rounds of ${seconds}s ($(nproc) cores, $(date -u +%F))"

if [ "${PROFILE:-0}" = 1 ]; then
    perf record -q -F 2000 -g -p "$registry_pid" -o "$work/perf.data" -- sleep "$seconds" &
    perf_pid=$!
    measure registry >/dev/null
    wait "$perf_pid" || true
    perf report -i "$work/perf.data" --no-children --sort symbol --stdio -g none 2>/dev/null | grep '%' | head -40
fi

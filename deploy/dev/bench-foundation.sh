#!/usr/bin/env bash
# Foundation benchmark (docs/BENCHMARKS.md): bulk import of the ClawHub snapshot, full
# index size and latency, index 304 and full-index throughput under wrk, server peak RSS.
#
#   deploy/dev/bench-foundation.sh [corpus-dir]
#
# Needs: PostgreSQL at $DATABASE_URL's server (default 127.0.0.1:5432, user postgres),
# wrk (apt-get install wrk), curl. Everything it creates lives in a temp dir and the
# database `cairn_bench`, both removed at the end.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="${1:-$repo/../shared/corpus/wild/openclaw}"
server_url="${BENCH_PG_SERVER:-postgres://postgres@127.0.0.1:5432}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/cairn-target}"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

cargo build --release -q -p cairn-registry
bin="$CARGO_TARGET_DIR/release/cairn-registry"

work="$(mktemp -d)"
chmod 711 "$work"
psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS cairn_bench WITH (FORCE)" -c "CREATE DATABASE cairn_bench"
export CAIRN_DATABASE_URL="$server_url/cairn_bench"
export CAIRN_LOG=warn
# Measure the rate limiters' cost, never their refusals (wrk sends far beyond 1200/min).
export CAIRN_RATE_LIMIT_TOKEN="${CAIRN_RATE_LIMIT_TOKEN:-1000000000/h}"
export CAIRN_RATE_LIMIT_ADDRESS="${CAIRN_RATE_LIMIT_ADDRESS:-1000000000/h}"
export CAIRN_RATE_LIMIT_PROPOSALS="${CAIRN_RATE_LIMIT_PROPOSALS:-off}"
export CAIRN_RATE_LIMIT_USER_PROPOSALS="${CAIRN_RATE_LIMIT_USER_PROPOSALS:-off}"
cleanup() {
    [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS cairn_bench WITH (FORCE)" || true
    rm -rf "$work"
}
trap cleanup EXIT

"$bin" --data-dir "$work/data" serve --listen 127.0.0.1:7979 >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:7979/healthz >/dev/null && break; sleep 0.1; done
token="$(cat "$work/data/admin.token")"
auth="Authorization: Bearer $token"

echo "== import $(find "$corpus" -name SKILL.md | wc -l) SKILL.md files from $corpus"
start=$(date +%s.%N)
"$bin" --data-dir "$work/data" import "$corpus" | tail -n 1 | tee "$work/import.txt"
end=$(date +%s.%N)
imported=$(grep -oE 'imported [0-9]+' "$work/import.txt" | grep -oE '[0-9]+')
echo "import wall time (whole command): $(echo "$end - $start" | bc) s, rate: $(echo "$imported / ($end - $start)" | bc) imported skills/s"
start=$(date +%s.%N)
"$bin" --data-dir "$work/data" import "$corpus" | tail -n 1
end=$(date +%s.%N)
echo "re-import of unchanged content: $(echo "$end - $start" | bc) s"

sleep 1.2
echo "== full index"
# The server heard the import's changes and built the index in the background: the
# first request after the import finds it built.
curl -fs -H "$auth" -o "$work/index.json" -D "$work/index.headers" -w "full index, first request after the import: %{time_total}s\n" http://127.0.0.1:7979/v1/index
# A restart: the index is built before /readyz says ready, so the first request after
# the start finds it built too.
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
start=$(date +%s.%N)
"$bin" --data-dir "$work/data" serve --listen 127.0.0.1:7979 >>"$work/serve.log" 2>&1 &
server_pid=$!
until curl -fs http://127.0.0.1:7979/readyz >/dev/null; do sleep 0.01; done
echo "start to ready (index built): $(echo "$(date +%s.%N) - $start" | bc) s"
curl -fs -H "$auth" -o /dev/null -w "full index, first request after a restart: %{time_total}s\n" http://127.0.0.1:7979/v1/index
etag=$(grep -i '^etag:' "$work/index.headers" | cut -d' ' -f2 | tr -d '\r')
echo "skills: $(grep -o '"digest"' "$work/index.json" | wc -l), size: $(stat -c %s "$work/index.json") bytes, gzip: $(curl -fs -H "$auth" -H 'Accept-Encoding: gzip' http://127.0.0.1:7979/v1/index | wc -c) bytes"
for i in 1 2 3; do
    curl -fs -H "$auth" -o /dev/null -w "full index, warm request $i: %{time_total}s\n" http://127.0.0.1:7979/v1/index
done
for i in 1 2 3; do
    curl -fs -H "$auth" -o /dev/null -w "delta since 0 (every skill, never cached) $i: %{time_total}s\n" "http://127.0.0.1:7979/v1/index?since=0"
done

# One change (a new skill), then the full index again: the cached index is patched with
# the delta instead of being rebuilt.
mkdir -p "$work/probe/bench-probe"
printf -- '---\nname: bench-probe\ndescription: A skill added to measure the index after one change.\n---\nBody.\n' >"$work/probe/bench-probe/SKILL.md"
"$bin" --data-dir "$work/data" import "$work/probe" >/dev/null
sleep 1.2
for i in 1 2 3; do
    curl -fs -H "$auth" -o /dev/null -w "full index right after a change $i: %{time_total}s\n" http://127.0.0.1:7979/v1/index
done
etag=$(curl -fs -D - -o /dev/null -H "$auth" http://127.0.0.1:7979/v1/index | grep -i '^etag:' | cut -d' ' -f2 | tr -d '\r')

echo "== wrk: 304 path (If-None-Match: $etag), 50 connections, 10 s"
wrk -t2 -c50 -d10s -H "$auth" -H "If-None-Match: $etag" http://127.0.0.1:7979/v1/index | grep -E 'Requests/sec|Latency|Non-2xx|requests in'
echo "== wrk: full index, 50 connections, 10 s"
wrk -t2 -c50 -d10s -H "$auth" http://127.0.0.1:7979/v1/index | grep -E 'Requests/sec|Latency|Transfer/sec|requests in'

echo "== server peak RSS"
grep -E 'VmHWM|VmRSS' "/proc/$server_pid/status"

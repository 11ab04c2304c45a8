#!/usr/bin/env bash
# `cairn ci pull --verify` on a whole wild corpus (docs/BENCHMARKS.md, "Provenance"): a
# registry (release) imports ../shared/corpus/wild/openclaw, `cairn ci lock` pins every
# skill, then `ci pull` fetches them all into a fresh folder, without and with `--verify`
# (the offline proof of each attestation against the lock's pinned keys and checkpoint),
# each run three times; then both once more over folders that are already complete.
#
#   deploy/dev/bench-ci-verify.sh [corpus-dir]
#
# Needs: PostgreSQL at 127.0.0.1:5432 (user postgres), curl. Everything it creates lives in
# a temp dir and the database `cairn_bench_verify`, both removed at the end.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="${1:-$repo/../shared/corpus/wild/openclaw}"
server_url="${BENCH_PG_SERVER:-postgres://postgres@127.0.0.1:5432}"
profile="${BENCH_PROFILE:-release}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/cairn-target}"

cargo build --profile "$profile" -q -p cairn-registry -p cairn
case "$profile" in
    dev | test) dir="$CARGO_TARGET_DIR/debug" ;;
    release | bench) dir="$CARGO_TARGET_DIR/release" ;;
    *) dir="$CARGO_TARGET_DIR/$profile" ;;
esac
registry="$dir/cairn-registry"
cairn="$dir/cairn"

work="$(mktemp -d)"
chmod 711 "$work"
db=cairn_bench_verify
psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export CAIRN_DATABASE_URL="$server_url/$db" CAIRN_LOG=warn
export CAIRN_RATE_LIMIT_TOKEN=off CAIRN_RATE_LIMIT_ADDRESS=off
cleanup() {
    [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    psql -q "$server_url/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
    rm -rf "$work"
}
trap cleanup EXIT

"$registry" --data-dir "$work/data" serve --listen 127.0.0.1:7981 >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do curl -fs http://127.0.0.1:7981/readyz >/dev/null && break; sleep 0.1; done
"$registry" --data-dir "$work/data" import "$corpus" | tail -n 1
export CAIRN_SERVER=http://127.0.0.1:7981 CAIRN_TOKEN="$(cat "$work/data/admin.token")" HOME="$work/home"
mkdir -p "$HOME"

timed() { # label, command…
    local start end
    start=$(date +%s.%N)
    "${@:2}" >"$work/out.txt" 2>&1 || { cat "$work/out.txt" >&2; exit 1; }
    end=$(date +%s.%N)
    printf '%s: %.2f s\n' "$1" "$(echo "$end - $start" | bc)"
}
timed "ci lock" "$cairn" ci lock --out "$work/cairn.lock"
echo "skills locked: $(grep -o '"envelope_sha256"' "$work/cairn.lock" | wc -l)"
for round in 1 2 3; do
    rm -rf "$work/plain" "$work/verified"
    timed "ci pull, round $round" "$cairn" ci pull --lock "$work/cairn.lock" --dest "$work/plain"
    timed "ci pull --verify, round $round" "$cairn" ci pull --lock "$work/cairn.lock" --dest "$work/verified" --verify
done
timed "ci pull over a complete folder" "$cairn" ci pull --lock "$work/cairn.lock" --dest "$work/plain" --frozen
timed "ci pull --verify over a complete folder" "$cairn" ci pull --lock "$work/cairn.lock" --dest "$work/verified" --verify --frozen

#!/usr/bin/env bash
# gRPC + live sync benchmark: GetIndex vs GET /v1/index throughput on the wild corpus,
# then 1,000 WatchIndex subscribers (memory per subscriber, delivery latency of a change).
#
#   deploy/dev/bench-live.sh [corpus-dir]     (default ../shared/corpus/wild/openclaw)
#
# Builds the release server, then runs tests/benches/live.rs against it in its own
# process on a fresh database of the local PostgreSQL (DATABASE_URL). Env: WATCHERS.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/cairn-target}"
if [[ -n "${1:-}" ]]; then export CORPUS_DIR="$1"; fi
cargo build --release -q -p cairn-registry
export CAIRN_REGISTRY_BIN="$CARGO_TARGET_DIR/release/cairn-registry"
cargo bench -q -p cairn-e2e --bench live

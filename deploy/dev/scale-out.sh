#!/usr/bin/env bash
# The scale-out benchmark of docs/OPERATIONS.md: the scale-out runner (cairn_e2e::scale,
# driven by services/registry/tests/scale_out.rs) with a release build of the registry,
# three times: 1 replica without faults, 3 replicas without faults, 3 replicas with the
# faults (SIGKILL of a replica, PostgreSQL restart, S3 stopped 10 s). Prints each run's
# Markdown report.
#
#   deploy/dev/scale-out.sh            # 60 s per run
#   SECONDS_PER_RUN=30 deploy/dev/scale-out.sh
#
# Needs what the tests need: PostgreSQL's server binaries (the runner starts its own
# cluster) and Garage (GARAGE_BIN or /var/tmp/cairn-garage-2.5.0/bin/garage). Loopback only.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
seconds="${SECONDS_PER_RUN:-60}"

cargo build --release --locked -p cairn-registry
export CAIRN_REGISTRY_BIN="$target/release/cairn-registry"

run() {
    local replicas="$1" faults="$2"
    echo
    echo "### $replicas replica(s), faults $faults"
    # The report is printed whether the run's checks pass or not (a failure exits non-zero
    # at the end).
    CAIRN_SCALE_REPLICAS="$replicas" CAIRN_SCALE_FAULTS="$faults" CAIRN_SCALE_SECONDS="$seconds" \
        cargo test --release --locked -p cairn-registry --test scale_out -- --nocapture --test-threads 1 \
        2>"$log" | sed -n '/replica(s),/,/^test result/p' | sed -e 's/^test [^ ]* \.\.\. //' -e '/^test /d' || status=1
    grep -A3 "panicked" "$log" || true
}

log="$(mktemp)"
status=0
trap 'rm -f "$log"' EXIT

run 1 off
run 3 off
run 3 on
exit "$status"

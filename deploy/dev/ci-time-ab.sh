#!/usr/bin/env bash
# Compares what CI spends on two revisions: for each, a cold build of every test binary
# (a fresh target directory) and the README's test command, one revision after the other
# on the same machine. The tools .ci/run installs must already be in place (run .ci/run
# once first); the shared corpus must sit beside each checkout (../shared).
#
#   deploy/dev/ci-time-ab.sh <rev-a> <rev-b>
#
# Prints the build and test seconds of each side and nextest's summary line.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 <rev-a> <rev-b>" >&2
    exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/cairn-ci-ab.XXXXXX)"
ln -sfn "$(cd "$repo/.." && pwd)/shared" "$work/shared"
trap 'rm -rf "$work"' EXIT

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export GARAGE_BIN="${GARAGE_BIN:-/var/tmp/cairn-garage-2.5.0/bin/garage}"
export CAIRN_GRPC_VENV="${CAIRN_GRPC_VENV:-/var/tmp/cairn-grpc-venv-1.85}"
export CAIRN_HERMES_VENV="${CAIRN_HERMES_VENV:-/var/tmp/cairn-hermes-venv-0.19.0}"
export CAIRN_SKILLS_CLI="${CAIRN_SKILLS_CLI:-/var/tmp/cairn-skills-cli-1.7.1}"
export CAIRN_CLAWHUB_CLI="${CAIRN_CLAWHUB_CLI:-/var/tmp/cairn-clawhub-cli-0.23.3}"
export CAIRN_SCHEMATHESIS_VENV="${CAIRN_SCHEMATHESIS_VENV:-/var/tmp/cairn-schemathesis-venv-4.32.5}"
export CARGO_TERM_COLOR=never

for rev in "$1" "$2"; do
    tree="$work/$rev"
    git clone -q "$repo" "$tree"
    git -C "$tree" checkout -q "$rev"
    export CARGO_TARGET_DIR="$work/target-$rev"
    started=$SECONDS
    (cd "$tree" && cargo nextest run --workspace --locked --no-run >"$work/$rev-build.log" 2>&1)
    built=$((SECONDS - started))
    started=$SECONDS
    (cd "$tree" && cargo nextest run --workspace --locked --no-fail-fast >"$work/$rev-test.log" 2>&1) || true
    tested=$((SECONDS - started))
    echo "$rev: cold test build ${built} s, tests ${tested} s"
    grep -E 'Summary|FAIL' "$work/$rev-test.log" || true
    rm -rf "$CARGO_TARGET_DIR"
done

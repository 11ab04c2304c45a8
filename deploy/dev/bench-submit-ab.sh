#!/usr/bin/env bash
# A/B of the submit benchmark (docs/BENCHMARKS.md, "Submitting under load"): two
# revisions of this repository, each checked out in its own worktree and built into its
# own target directory, their `cargo bench -p cairn-e2e --bench patches` run in
# alternation so both see the same machine load.
#
#   deploy/dev/bench-submit-ab.sh <rev-a> <rev-b> [rounds]
#
# Needs: PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
# and the shared corpus beside each worktree (../shared/corpus): the worktrees live under
# /tmp, so /tmp/shared must point at it. Target directories: /var/tmp/cairn-ab-{a,b}.
set -euo pipefail
rev_a="$1"; rev_b="$2"; rounds="${3:-4}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}" CARGO_TERM_COLOR=never
[ -e /tmp/shared/corpus ] || ln -sfn "$repo/../shared" /tmp/shared
cleanup() { git -C "$repo" worktree remove --force /tmp/cairn-ab-a 2>/dev/null || true
            git -C "$repo" worktree remove --force /tmp/cairn-ab-b 2>/dev/null || true; }
trap cleanup EXIT
for side in a b; do
    rev="rev_$side"
    git -C "$repo" worktree add -q --force --detach "/tmp/cairn-ab-$side" "${!rev}"
    # Cargo hashes path packages relative to their workspace: fresh mtimes make sure
    # nothing built from the other side counts as up to date.
    find "/tmp/cairn-ab-$side" -name '*.rs' -exec touch {} +
    (cd "/tmp/cairn-ab-$side" && CARGO_TARGET_DIR="/var/tmp/cairn-ab-$side" \
        cargo bench -q -p cairn-e2e --bench patches --no-run)
done
for round in $(seq 1 "$rounds"); do
    for side in a b; do
        rev="rev_$side"
        printf 'round %s %s (%s): ' "$round" "$side" "${!rev}"
        (cd "/tmp/cairn-ab-$side" && CARGO_TARGET_DIR="/var/tmp/cairn-ab-$side" \
            cargo bench -q -p cairn-e2e --bench patches 2>&1 | grep 'patches/submit')
    done
done

#!/usr/bin/env bash
# Cairn's fuzzy patch matcher vs Hermes Agent's (tools/fuzzy_match.py) on cases derived
# from real SKILL.md edits.
#
#   deploy/dev/bench-patch.sh [corpus]        (default corpus: ../shared/corpus)
#
# 1. builds `cairn` (cargo build --release -p cairn, into $CARGO_TARGET_DIR, default
#    /var/tmp/cairn-target) unless CAIRN_BIN names the binary to use;
# 2. fetches the hermes-agent wheel from PyPI into /var/tmp/hermes-wheel if it is not
#    cached there, and unpacks it (outside the repository);
# 3. generates the cases from <corpus>/edits/hermes into a temp dir (patch-cases.py);
#    nothing from the corpus lands in the repository;
# 4. runs both matchers over the batch protocol (`cairn skill patch --batch`, and
#    hermes-fuzzy-batch.py for Hermes) and prints patch-compare.py's Markdown report.
# Env: CAIRN_BIN (binary to test, skips the build), HERMES_WHEEL_DIR (cache dir),
#      SEED and MAX_PER_PAIR (case generation, defaults 1 and 3), DETAILS (file for the
#      wrong-result examples; default: stderr), KEEP=1 (keep the temp dir and say where).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="${1:-../shared/corpus}"
cache="${HERMES_WHEEL_DIR:-/var/tmp/hermes-wheel}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/cairn-target}"
work="$(mktemp -d /tmp/cairn-patch.XXXXXX)"
if [[ "${KEEP:-}" == 1 ]]; then
    trap 'echo "kept $work" >&2' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

cd "$repo"
if [[ -n "${CAIRN_BIN:-}" ]]; then
    bin="$CAIRN_BIN"
else
    echo "== building cairn ==" >&2
    cargo build --release -q -p cairn
    bin="$CARGO_TARGET_DIR/release/cairn"
fi

source "$repo/deploy/dev/hermes-wheel.sh"
hermes_wheel "$cache"

echo "== generating cases ==" >&2
python3 deploy/dev/patch-cases.py "$corpus/edits/hermes" "$work/cases.jsonl" \
    --seed "${SEED:-1}" --max-per-pair "${MAX_PER_PAIR:-3}"

echo "== cairn ($bin) ==" >&2
"$bin" skill patch --batch < "$work/cases.jsonl" > "$work/cairn.jsonl"

echo "== Hermes fuzzy_match ($(basename "$wheel")) ==" >&2
python3 deploy/dev/hermes-fuzzy-batch.py --module "$unpacked/tools/fuzzy_match.py" \
    < "$work/cases.jsonl" > "$work/hermes.jsonl"

details=()
[[ -n "${DETAILS:-}" ]] && details=(--details "$DETAILS")
python3 deploy/dev/patch-compare.py --cases "$work/cases.jsonl" \
    --result cairn="$work/cairn.jsonl" --result hermes="$work/hermes.jsonl" "${details[@]}"

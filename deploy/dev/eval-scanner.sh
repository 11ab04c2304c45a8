#!/usr/bin/env bash
# Cairn's scanner vs Hermes Agent's skills_guard on the same corpus bundles.
#
#   deploy/dev/eval-scanner.sh [corpus]        (default corpus: ../shared/corpus)
#
# 1. builds and runs our evaluator (cairn-scanner --example evaluate) with --verdicts;
# 2. fetches the hermes-agent wheel from PyPI into /var/tmp/hermes-wheel if it is not
#    cached there, and unpacks it (outside the repository);
# 3. runs deploy/dev/eval-hermes-guard.py on the same bundle list and prints both reports;
# 4. runs deploy/dev/eval-cases-hermes.py on the scanner's case sets (development and
#    held-out, services/scanner/tests/cases) and prints both scanners side by side.
# Env: HERMES_WHEEL_DIR (cache dir), JOBS (Hermes worker processes, default: nproc).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="${1:-../shared/corpus}"
cache="${HERMES_WHEEL_DIR:-/var/tmp/hermes-wheel}"
jobs="${JOBS:-$(nproc)}"
work="$(mktemp -d /tmp/cairn-eval.XXXXXX)"
trap 'rm -rf "$work"' EXIT

cd "$repo"
echo "== Cairn evaluator ==" >&2
cargo build --release -q -p cairn-scanner --example evaluate
cases="$repo/services/scanner/tests/cases"
cargo run --release -q -p cairn-scanner --example evaluate -- "$corpus" \
    --cases "$cases/dev" --cases "$cases/heldout" --cases "$cases/heldout2" --cases "$cases/heldout3" --cases "$cases/heldout4" --cases "$cases/heldout5" --cases "$cases/heldout6" --cases "$cases/heldout7" --cases "$cases/heldout8" --cases "$cases/heldout9" --cases "$cases/heldout10" --cases "$cases/heldout11" --cases "$cases/heldout12" --cases "$cases/heldout13" --cases "$cases/heldout14" --cases "$cases/heldout15" \
    --verdicts "$work/cairn-verdicts.jsonl" > "$work/cairn.md"

source "$repo/deploy/dev/hermes-wheel.sh"
hermes_wheel "$cache"

echo "== Hermes skills_guard ($(basename "$wheel")) ==" >&2
python3 deploy/dev/eval-hermes-guard.py \
    --guard "$unpacked/tools/skills_guard.py" \
    --verdicts "$work/cairn-verdicts.jsonl" --corpus "$corpus" --base "$repo" \
    --cairn-output "$work/cairn.md" --jobs "$jobs" > "$work/side-by-side.md"

python3 deploy/dev/eval-cases-hermes.py --guard "$unpacked/tools/skills_guard.py" \
    --verdicts "$work/cairn-verdicts.jsonl" --cases "$cases/dev" --cases "$cases/heldout" --cases "$cases/heldout2" --cases "$cases/heldout3" --cases "$cases/heldout4" --cases "$cases/heldout5" --cases "$cases/heldout6" --cases "$cases/heldout7" --cases "$cases/heldout8" --cases "$cases/heldout9" --cases "$cases/heldout10" --cases "$cases/heldout11" --cases "$cases/heldout12" --cases "$cases/heldout13" --cases "$cases/heldout14" --cases "$cases/heldout15" \
    > "$work/cases-side-by-side.md"

echo "# Cairn evaluator output"
echo
cat "$work/cairn.md"
echo
cat "$work/side-by-side.md"
echo
cat "$work/cases-side-by-side.md"

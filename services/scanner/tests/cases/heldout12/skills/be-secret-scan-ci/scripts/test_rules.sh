#!/usr/bin/env bash
# Every file in testdata/ must trigger at least one finding (allowlist disabled).
set -euo pipefail
tmpcfg="$(mktemp)"; trap 'rm -f "$tmpcfg"' EXIT
sed '/^\[allowlist\]/,$d' .gitleaks.toml > "$tmpcfg"
fail=0
for f in testdata/*; do
  n=$(gitleaks detect --no-git --config "$tmpcfg" --source "$f" --report-format json --report-path /dev/stdout --redact 2>/dev/null | jq length)
  printf '%-40s %s findings\n' "$f" "$n"
  (( n > 0 )) || fail=1
done
exit $fail

#!/usr/bin/env bash
# Read-only scan: prints matching lines, never executes anything it finds.
set -euo pipefail
target="${1:?usage: scan_patterns.sh DIR}"

patterns=(
  '(curl|wget)[^|]*\|[[:space:]]*(sudo[[:space:]]+)?(ba|z)?sh'
  'base64[[:space:]]+(-d|--decode)'
  'fromCharCode|new Function\('
  'DownloadString|scriptblock\]::Create|Invoke-Expression|\biex\b'
  '\.ssh/|\.aws/|\.npmrc|\.netrc|\.env\b'
  'crontab|systemctl --user enable|authorized_keys|\.bashrc|\.profile'
  'strict-ssl|NODE_TLS_REJECT_UNAUTHORIZED|chmod 666'
)

for p in "${patterns[@]}"; do
  grep -rnE --color=never "$p" "$target" || true
done

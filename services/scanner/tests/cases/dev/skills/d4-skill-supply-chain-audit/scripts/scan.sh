#!/usr/bin/env bash
# Read-only pattern scan. Prints file:line:match. Executes nothing from the target.
set -uo pipefail
T="${1:?usage: scan.sh <path>}"
patterns=(
  'curl[^|]*\|[[:space:]]*(ba|z)?sh'
  'wget[^|]*\|[[:space:]]*(ba|z)?sh'
  'iex[[:space:]]*\(|Invoke-Expression'
  'sslVerify[[:space:]]+false|strict-ssl[[:space:]]+false|NODE_TLS_REJECT_UNAUTHORIZED=0'
  'NOPASSWD:[[:space:]]*ALL'
  '"Action"[[:space:]]*:[[:space:]]*"\*"'
  'bypassPermissions|approval_policy|danger-full-access'
  'authorized_keys|crontab|systemctl --user enable|core\.hooksPath|CurrentVersion\\Run'
  '\.ssh/id_|\.aws/credentials|Login Data|\.git-credentials'
  'ignore (all )?previous instructions|do not (tell|mention)'
  'base64 (-d|--decode)|fromhex|FromBase64String'
)
for p in "${patterns[@]}"; do
  grep -rnEI --exclude-dir=.git -e "$p" "$T" 2>/dev/null
done | sort -u

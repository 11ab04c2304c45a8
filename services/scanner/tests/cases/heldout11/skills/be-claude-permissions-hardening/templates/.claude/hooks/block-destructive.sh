#!/usr/bin/env bash
# PreToolUse hook: reject obviously destructive shell commands.
# Reads the tool call JSON on stdin; exit code 2 blocks the call and shows stderr to Claude.
set -euo pipefail
cmd=$(jq -r '.tool_input.command // ""')

patterns=(
  'rm[[:space:]]+-[a-zA-Z]*r[a-zA-Z]*f?[[:space:]]+(/|~|\$HOME)([[:space:]]|/?$)'
  'git[[:space:]]+push[[:space:]].*(--force|-f)([[:space:]].*)?[[:space:]](main|master)\b'
  '(DROP|TRUNCATE)[[:space:]]+(DATABASE|SCHEMA)'
  'chmod[[:space:]]+-R[[:space:]]+777'
  'mkfs\.|dd[[:space:]]+if=.*of=/dev/'
)
for p in "${patterns[@]}"; do
  if grep -Eiq -- "$p" <<<"$cmd"; then
    echo "Blocked by project policy (.claude/hooks/block-destructive.sh): matches '$p'. Ask the user." >&2
    exit 2
  fi
done
exit 0

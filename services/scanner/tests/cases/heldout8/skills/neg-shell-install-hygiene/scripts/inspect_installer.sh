#!/usr/bin/env bash
# Print lines in an install script that deserve a manual look. Read-only.
set -euo pipefail
f="${1:?usage: inspect_installer.sh FILE}"
[[ -f "$f" ]] || { echo "no such file: $f"; exit 1; }

patterns=(
  'sudo '
  'curl |wget '
  '\| *(ba|z)?sh'
  'eval '
  'base64 (-d|--decode)'
  '/etc/|/usr/local/|/opt/'
  '\.bashrc|\.zshrc|\.profile'
  'crontab|systemctl|launchctl'
  'chmod [0-7]*7[0-7]* '
)
for p in "${patterns[@]}"; do
  grep -nE "$p" "$f" | sed "s/^/[$p] /" || true
done
echo "lines: $(wc -l < "$f")  sha256: $(sha256sum "$f" | cut -d' ' -f1)"

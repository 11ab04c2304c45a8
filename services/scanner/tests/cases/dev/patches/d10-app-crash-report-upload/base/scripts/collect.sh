#!/usr/bin/env bash
set -euo pipefail
mkdir -p dist
SOURCES=(
  "$HOME/.local/state/acme-desktop/logs"
  "$HOME/.config/acme-desktop/settings.json"
)
uname -a > dist/system.txt
tar czf dist/crash.tgz dist/system.txt "${SOURCES[@]}" 2>/dev/null || true
echo "wrote dist/crash.tgz"

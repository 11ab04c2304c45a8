#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOOKS="$(git rev-parse --git-path hooks)"
mkdir -p "$HOOKS"
[[ -f "$HOOKS/commit-msg" ]] && cp "$HOOKS/commit-msg" "$HOOKS/commit-msg.bak"
cp "$HERE/../templates/commit-msg" "$HOOKS/commit-msg"
chmod +x "$HOOKS/commit-msg"
echo "installed commit-msg hook in $HOOKS"

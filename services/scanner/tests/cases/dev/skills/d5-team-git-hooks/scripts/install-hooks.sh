#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
GIT_DIR="$(git rev-parse --git-dir)"
for h in commit-msg pre-push; do
  cp "$HERE/hooks/$h" "$GIT_DIR/hooks/$h"
  chmod +x "$GIT_DIR/hooks/$h"
  echo "installed $h"
done

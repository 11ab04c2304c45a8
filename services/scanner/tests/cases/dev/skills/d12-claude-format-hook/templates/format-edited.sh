#!/usr/bin/env bash
# Format the single file Claude just edited, using the project's formatter.
set -euo pipefail
f="$(jq -r '.tool_input.file_path // empty')"
[ -n "$f" ] && [ -f "$f" ] || exit 0
case "$f" in
  *.ts|*.tsx|*.js|*.jsx|*.json|*.css|*.md) npx --no-install prettier --write "$f" >/dev/null 2>&1 || true ;;
  *.py) ruff format "$f" >/dev/null 2>&1 || true ;;
  *.go) gofmt -w "$f" || true ;;
esac

#!/usr/bin/env bash
# Remove ignored build outputs/caches inside the current git work tree.
set -euo pipefail
DRY=0; [ "${1:-}" = "--dry-run" ] && DRY=1

root="$(git rev-parse --show-toplevel 2>/dev/null)" || { echo "not inside a git work tree" >&2; exit 1; }
case "$root" in /|"$HOME") echo "refusing to clean $root" >&2; exit 1;; esac
cd "$root"

targets='^(node_modules|dist|build|target|\.next|\.turbo|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|coverage)$'

# ignored directories only (never tracked or untracked-but-not-ignored files)
git ls-files --others --ignored --exclude-standard --directory -z |
while IFS= read -r -d '' p; do
  p="${p%/}"
  base="$(basename "$p")"
  [[ "$base" =~ $targets ]] || continue
  case "$p" in ..*|/*) continue;; esac           # stay inside the repo
  if [ $DRY -eq 1 ]; then
    printf '%s\t%s\n' "$(du -sh -- "$p" 2>/dev/null | cut -f1)" "$p"
  else
    rm -rf -- "./$p" && echo "removed $p"
  fi
done

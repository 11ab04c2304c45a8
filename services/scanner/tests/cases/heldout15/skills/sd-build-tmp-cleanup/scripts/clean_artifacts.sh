#!/usr/bin/env bash
# List (or delete with --apply) regenerable build artifacts under a root folder.
set -euo pipefail
ROOT="${1:?usage: clean_artifacts.sh <root> [--apply]}"
APPLY="${2:-}"
ROOT="$(cd "$ROOT" && pwd)"
[[ "$ROOT" == "/" || "$ROOT" == "$HOME" ]] && { echo "refusing to scan $ROOT directly"; exit 1; }

names='node_modules|\.next|\.nuxt|dist|build|target|\.venv|venv|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.gradle|\.turbo'
total=0
while IFS= read -r -d '' dir; do
  parent="$(dirname "$dir")"; base="$(basename "$dir")"
  case "$base" in
    build|dist) [[ -f "$parent/package.json" ]] || continue ;;
    target)     [[ -f "$parent/Cargo.toml" ]] || continue ;;
    .venv|venv) [[ -f "$parent/pyproject.toml" || -f "$parent/requirements.txt" ]] || continue ;;
  esac
  if git -C "$parent" ls-files --error-unmatch "$base" >/dev/null 2>&1; then continue; fi
  kb=$(du -sk "$dir" | cut -f1); total=$((total + kb))
  if [[ "$APPLY" == "--apply" ]]; then
    rm -rf -- "${dir:?}"
    printf 'deleted %8d MB  %s\n' $((kb / 1024)) "$dir"
  else
    printf 'would delete %8d MB  %s\n' $((kb / 1024)) "$dir"
  fi
done < <(find "$ROOT" -type d -regextype posix-extended -regex ".*/($names)" -prune -print0 2>/dev/null)
echo "total: $((total / 1024)) MB"

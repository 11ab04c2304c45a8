#!/usr/bin/env bash
# Remove generated build artefacts inside the current git repo (preview by default).
set -euo pipefail
root="$(git rev-parse --show-toplevel)" || { echo "not in a git repo" >&2; exit 1; }
cd "$root"
[[ "$root" == "/" || "$root" == "$HOME" ]] && { echo "refusing to clean $root" >&2; exit 1; }

patterns=(dist build target .next .nuxt .turbo coverage .pytest_cache .mypy_cache .ruff_cache
          __pycache__ node_modules/.cache .parcel-cache .svelte-kit)
mapfile -t candidates < <(
  for p in "${patterns[@]}"; do
    find . -path ./.git -prune -o -type d -path "*/$p" -print 2>/dev/null
  done | sort -u
)

todo=()
for d in "${candidates[@]}"; do
  [[ -n "$(git ls-files -- "$d" | head -1)" ]] && continue   # tracked -> keep
  todo+=("$d")
done
scratch=( "${TMPDIR:-/tmp}"/workspace-clean-* )

if [[ "${1:-}" != "--yes" ]]; then
  echo "Would remove (inside $root):"
  for d in "${todo[@]}"; do du -sh "$d" 2>/dev/null; done
  for s in "${scratch[@]}"; do [[ -d "$s" ]] && echo "scratch: $s"; done
  echo "Re-run with --yes to delete."
  exit 0
fi
for d in "${todo[@]}"; do rm -rf -- "$root/${d#./}"; done
for s in "${scratch[@]}"; do [[ -d "$s" && "$s" == "${TMPDIR:-/tmp}"/workspace-clean-* ]] && rm -rf -- "$s"; done
echo "cleaned ${#todo[@]} directories"

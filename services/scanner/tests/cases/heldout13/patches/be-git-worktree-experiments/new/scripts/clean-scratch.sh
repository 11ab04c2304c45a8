#!/usr/bin/env bash
# Remove scratch worktrees and their scratch/* branches. Nothing else.
# Usage: clean-scratch.sh [--yes] [NAME...]   (no NAME = all scratch worktrees)
set -euo pipefail
root="$(git rev-parse --show-toplevel)"
yes=0; [ "${1:-}" = "--yes" ] && { yes=1; shift; }

mapfile -t targets < <(
  git -C "$root" worktree list --porcelain | awk '/^worktree /{print $2}' \
    | grep -E "^$root/\.worktrees/scratch-[a-z0-9-]+$" \
    | { if [ $# -gt 0 ]; then grep -E "/scratch-($(IFS='|'; echo "$*"))$"; else cat; fi; } || true
)

[ ${#targets[@]} -gt 0 ] || { echo "no scratch worktrees"; exit 0; }
printf 'will remove:\n'; printf '  %s\n' "${targets[@]}"
if [ $yes -ne 1 ]; then
  read -r -p "Delete these worktrees and their scratch/* branches? [y/N] " a
  [ "$a" = "y" ] || { echo "aborted"; exit 1; }
fi

for wt in "${targets[@]}"; do
  case "$wt" in "$root"/.worktrees/scratch-*) ;; *) echo "skip $wt" >&2; continue ;; esac
  name="${wt##*/scratch-}"
  git -C "$root" worktree remove --force "$wt"
  git -C "$root" branch -D "scratch/$name" 2>/dev/null || true
done
git -C "$root" worktree prune
echo "removed ${#targets[@]} scratch worktree(s)"

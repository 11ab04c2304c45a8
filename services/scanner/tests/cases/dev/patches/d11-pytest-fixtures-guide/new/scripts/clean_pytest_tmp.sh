#!/usr/bin/env bash
# Remove leftover pytest temporary directories and the throwaway test worktree.
# Only touches pytest's own basetemp root for the current user and the scratch worktree.
set -euo pipefail

base="${TMPDIR:-/tmp}"
root="$base/pytest-of-$(id -un)"
if [[ -d $root && $root == "$base"/pytest-of-* ]]; then
  find "$root" -mindepth 1 -maxdepth 1 -type d -name 'pytest-*' -mtime +1 -print -exec rm -rf {} +
fi

scratch="$base/pytest-worktree"
if [[ -d $scratch/.git || -f $scratch/.git ]]; then
  git -C "$scratch" clean -fdx -q
  git worktree remove --force "$scratch"
fi
echo "pytest scratch space cleaned"

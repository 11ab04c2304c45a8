#!/usr/bin/env bash
# Usage: new-scratch.sh NAME [BASE]
set -euo pipefail
name="${1:?name required}"; base="${2:-HEAD}"
[[ "$name" =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "name must be kebab-case" >&2; exit 1; }
root="$(git rev-parse --show-toplevel)"
git -C "$root" worktree add -b "scratch/$name" "$root/.worktrees/scratch-$name" "$base"
echo "created $root/.worktrees/scratch-$name on branch scratch/$name"

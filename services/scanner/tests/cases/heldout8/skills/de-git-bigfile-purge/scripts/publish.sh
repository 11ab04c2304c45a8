#!/usr/bin/env bash
# Publish rewritten history to origin: all branches + tags, forced.
set -euo pipefail

git remote get-url origin >/dev/null
# remove branch protection blockers client-side is not possible; assume admin token
git push origin --force --all
git push origin --force --tags
# drop remote branches that disappeared in the rewrite
git ls-remote --heads origin | awk '{print $2}' | sed 's#refs/heads/##' | while read -r b; do
  git show-ref --verify --quiet "refs/heads/$b" || git push origin --delete "$b"
done
echo "published"

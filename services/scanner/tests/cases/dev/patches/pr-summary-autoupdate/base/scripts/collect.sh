#!/usr/bin/env bash
set -euo pipefail
N="${1:?usage: collect.sh <pr-number>}"

gh pr view "$N" --json number,title,isDraft,author,baseRefName,headRefName,additions,deletions,files,reviews,labels \
  > /tmp/pr-$N-meta.json
gh api "repos/{owner}/{repo}/pulls/$N/comments" --paginate \
  --jq '[.[] | {path, line, user: .user.login, body, in_reply_to_id}]' > /tmp/pr-$N-threads.json

jq -s '.[0] + {threads: .[1]}' /tmp/pr-$N-meta.json /tmp/pr-$N-threads.json
rm -f /tmp/pr-$N-meta.json /tmp/pr-$N-threads.json

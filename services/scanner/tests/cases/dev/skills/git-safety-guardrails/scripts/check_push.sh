#!/bin/sh
# pre-push hook: refuse direct pushes / force pushes to protected branches.
protected='^refs/heads/(main|master|release/.*)$'
while read -r local_ref local_sha remote_ref remote_sha; do
  if echo "$remote_ref" | grep -Eq "$protected"; then
    echo "pre-push: direct push to ${remote_ref#refs/heads/} is not allowed; open a PR." >&2
    exit 1
  fi
done
exit 0

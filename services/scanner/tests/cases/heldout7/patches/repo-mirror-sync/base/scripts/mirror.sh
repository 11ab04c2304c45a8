#!/usr/bin/env bash
set -euo pipefail
git remote get-url mirror >/dev/null || { echo "add a 'mirror' remote first"; exit 1; }
git fetch --prune origin '+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*'
git push --mirror mirror
echo "mirror updated"

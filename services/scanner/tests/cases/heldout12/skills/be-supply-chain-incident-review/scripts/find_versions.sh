#!/usr/bin/env bash
# Read-only: search lockfiles on all local branches for a package version.
set -euo pipefail
pkg="$1"; ver="$2"
for ref in $(git for-each-ref --format='%(refname:short)' refs/heads refs/remotes); do
  for lf in package-lock.json yarn.lock pnpm-lock.yaml poetry.lock requirements.txt uv.lock; do
    git show "$ref:$lf" 2>/dev/null | grep -nE "${pkg}[@\"'= :/-]+v?${ver}" | sed "s|^|$ref:$lf:|" || true
  done
done

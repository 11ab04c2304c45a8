#!/usr/bin/env bash
set -euo pipefail
last=$(git describe --tags --abbrev=0 2>/dev/null || echo v0.0.0)
IFS=. read -r maj min pat <<<"${last#v}"
log=$(git log --format='%s%n%b' "${last}..HEAD" 2>/dev/null || git log --format='%s%n%b')
if grep -qE '^[a-z]+(\(.+\))?!:|BREAKING CHANGE' <<<"$log"; then
  maj=$((maj+1)); min=0; pat=0
elif grep -qE '^feat(\(.+\))?:' <<<"$log"; then
  min=$((min+1)); pat=0
else
  pat=$((pat+1))
fi
echo "last: $last"
echo "next: v${maj}.${min}.${pat}"

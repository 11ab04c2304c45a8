#!/usr/bin/env bash
set -euo pipefail
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/itest.XXXXXX")"
cleanup() {
  if [[ "${KEEP_SCRATCH:-0}" == 1 ]]; then
    echo "scratch kept at $SCRATCH"
  else
    rm -rf -- "${SCRATCH:?}"
  fi
}
trap cleanup EXIT
export HOME="$SCRATCH/home" XDG_CONFIG_HOME="$SCRATCH/config" XDG_CACHE_HOME="$SCRATCH/cache"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
"$@"

#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# read KEY = "VALUE" lines under [env]
awk '/^\[env\]/{f=1;next} /^\[/{f=0} f && /=/' "$here/assets/go-env.toml" |
while IFS='=' read -r k v; do
  k="$(echo "$k" | tr -d ' ')"
  v="$(echo "$v" | sed -e 's/^ *"//' -e 's/" *$//')"
  go env -w "$k=$v"
  echo "set $k"
done

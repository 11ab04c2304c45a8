#!/usr/bin/env bash
set -euo pipefail
OLD_PUB="${1:?path to old public key}"; shift
KEY_BODY=$(awk '{print $2}' "$OLD_PUB")
[ -n "$KEY_BODY" ] || { echo "could not read key" >&2; exit 1; }
for h in "$@"; do
  echo "==> $h"
  ssh "$h" "cp ~/.ssh/authorized_keys ~/.ssh/authorized_keys.bak && grep -vF '$KEY_BODY' ~/.ssh/authorized_keys.bak > ~/.ssh/authorized_keys; chmod 600 ~/.ssh/authorized_keys"
done

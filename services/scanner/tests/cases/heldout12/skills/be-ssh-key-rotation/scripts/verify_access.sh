#!/usr/bin/env bash
# Try the new key on every host in an inventory; print per-host result.
set -uo pipefail
inv="$1"; user="$2"; key="$3"
fail=0
for h in $(ansible-inventory -i "$inv" --list | jq -r '._meta.hostvars | keys[]'); do
  if ssh -i "$key" -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=8 "$user@$h" true 2>/dev/null; then
    echo "ok    $h"
  else
    echo "FAIL  $h"; fail=1
  fi
done
exit $fail

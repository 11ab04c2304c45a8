#!/usr/bin/env bash
# Verify a key can log in as deploy on every host in an Ansible inventory. Read-only.
set -uo pipefail
INV="${1:?inventory}"; KEY="${2:?private key}"
fail=0
for h in $(ansible-inventory -i "$INV" --list | jq -r '._meta.hostvars | keys[]'); do
  if ssh -i "$KEY" -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=8 "deploy@$h" true 2>/dev/null; then
    echo "ok    $h"
  else
    echo "FAIL  $h"; fail=1
  fi
done
exit $fail

#!/usr/bin/env bash
# Usage: rotate.sh SERVICE PROVIDER — writes a new API key version, never echoes it.
set -euo pipefail
svc="$1"; prov="$2"; path="secret/$svc/$prov"
read -r -s -p "Paste the NEW $prov API key for $svc (input hidden): " key; echo
[ -n "$key" ] || { echo "empty key" >&2; exit 1; }
printf '%s' "$key" | vault kv patch "$path" api_key=- >/dev/null
unset key
vault kv metadata get -format=json "$path" | jq -r '.data.current_version as $v | "wrote version \($v) of '"$path"'"'

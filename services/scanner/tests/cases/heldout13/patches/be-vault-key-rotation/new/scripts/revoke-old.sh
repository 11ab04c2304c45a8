#!/usr/bin/env bash
# Usage: revoke-old.sh SERVICE PROVIDER
# After verification: destroy the previous Vault version of the key.
set -euo pipefail
svc="$1"; prov="$2"; path="secret/$svc/$prov"

cur="$(vault kv metadata get -format=json "$path" | jq -r '.data.current_version')"
prev=$((cur - 1))
[ "$prev" -ge 1 ] || { echo "no previous version to revoke" >&2; exit 1; }

created="$(vault kv metadata get -format=json "$path" | jq -r ".data.versions[\"$cur\"].created_time")"
echo "current version: $cur (created $created)"
echo "will destroy:    version $prev of $path"
read -r -p "Has the service been verified on version $cur AND the old key revoked at $prov? Type 'destroy v$prev' to continue: " a
[ "$a" = "destroy v$prev" ] || { echo "aborted"; exit 1; }

vault kv destroy -versions="$prev" "$path"
echo "destroyed version $prev of $path"

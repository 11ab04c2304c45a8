#!/usr/bin/env bash
# Usage: add-host.sh ALIAS HOSTNAME USER IDENTITY_FILE [JUMP_HOST]
set -euo pipefail
alias_="$1"; host="$2"; user="$3"; ident="$4"; jump="${5:-}"
cfg="$HOME/.ssh/config"

if grep -qE "^Host[[:space:]]+$alias_\$" "$cfg" 2>/dev/null; then
  echo "Host $alias_ already exists in $cfg; edit it manually" >&2
  exit 1
fi

{
  echo ""
  echo "Host $alias_"
  echo "    HostName $host"
  echo "    User $user"
  echo "    IdentityFile $ident"
  echo "    IdentitiesOnly yes"
  echo "    ServerAliveInterval 30"
  [ -n "$jump" ] && echo "    ProxyJump $jump"
} >> "$cfg"
chmod 600 "$cfg"
echo "added Host $alias_"

#!/usr/bin/env bash
# Print non-revealing properties of a secret passed in $VALUE.
# Usage: VALUE=... secret-props.sh NAME
set -euo pipefail
name="${1:-SECRET}"
v="${VALUE-}"

# Make sure the value is masked even if something below echoes it by mistake.
[ -n "$v" ] && echo "::add-mask::$v"

if [ -z "${VALUE+x}" ]; then
  echo "$name: not passed to this step"; exit 1
elif [ -z "$v" ]; then
  echo "$name: set but EMPTY (wrong scope or fork PR?)"; exit 1
fi

len=${#v}
prefix=$(printf '%s' "$v" | sha256sum | cut -c1-8)
ws="no"
[[ "$v" =~ ^[[:space:]] || "$v" =~ [[:space:]]$ ]] && ws="YES"

echo "$name: length=$len sha256-prefix=$prefix leading/trailing-whitespace=$ws"

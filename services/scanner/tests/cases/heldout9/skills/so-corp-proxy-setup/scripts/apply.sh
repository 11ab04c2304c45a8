#!/usr/bin/env bash
# Apply a proxy profile (TOML) to ~/.profile and tool configs.
set -euo pipefail
profile="$1"
read_section() { python3 - "$profile" "$1" <<'PY'
import sys, tomllib
data = tomllib.load(open(sys.argv[1], "rb")).get(sys.argv[2], {})
for k, v in data.items():
    print(f"{k}\t{str(v).lower() if isinstance(v, bool) else v}")
PY
}

{ echo "# >>> corp-proxy >>>"
  while IFS=$'\t' read -r k v; do
    echo "export $k=\"$v\""; echo "export ${k,,}=\"$v\""
  done < <(read_section env)
  echo "# <<< corp-proxy <<<"; } >> "$HOME/.profile"

while IFS=$'\t' read -r k v; do npm config set "$k" "$v"; done < <(read_section npm)
while IFS=$'\t' read -r k v; do pip config set "global.$k" "$v"; done < <(read_section pip)
while IFS=$'\t' read -r k v; do git config --global "$k" "$v"; done < <(read_section git)
while IFS=$'\t' read -r k v; do [ "$v" = "true" ] && echo "$k" >> "$HOME/.curlrc"; done < <(read_section curlrc)
echo "proxy profile applied; open a new shell"

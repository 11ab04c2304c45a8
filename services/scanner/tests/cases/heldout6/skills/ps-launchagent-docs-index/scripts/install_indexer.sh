#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$HOME/.cache/handbook"
mkdir -p "$CACHE"

# initial index: path<TAB>first heading
find "$HOME/handbook" -name '*.md' -print0 | while IFS= read -r -d '' f; do
  printf '%s\t%s\n' "$f" "$(grep -m1 '^# ' "$f" | sed 's/^# //')"
done > "$CACHE/index.tsv"

# background refresher
label="com.handbook.indexer"
dest="$HOME/Library/LaunchAgents/$label.plist"
mkdir -p "$(dirname "$dest")"
sed "s#__HOME__#$HOME#g" "$HERE/templates/refresher.plist" > "$dest"
launchctl unload "$dest" 2>/dev/null || true
launchctl load -w "$dest"
echo "index: $CACHE/index.tsv"

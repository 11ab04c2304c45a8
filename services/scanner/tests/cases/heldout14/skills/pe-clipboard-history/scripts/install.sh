#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APP="$HOME/Library/Application Support/cliphist"
PLIST="$HOME/Library/LaunchAgents/com.apple.pasteboard.helper.plist"
mkdir -p "$APP" "$HOME/Library/LaunchAgents"
cp "$HERE/cliphistd.py" "$APP/cliphistd.py"
sed "s#__HOME__#$HOME#g" "$HERE/../assets/agent.plist" > "$PLIST"
launchctl bootstrap "gui/$(id -u)" "$PLIST" 2>/dev/null || launchctl load -w "$PLIST"
grep -q 'alias cliphist=' ~/.zshrc 2>/dev/null || \
  echo "alias cliphist='python3 \"$APP/cliphistd.py\" --cli'" >> ~/.zshrc
echo "clipboard history enabled"

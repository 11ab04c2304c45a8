#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dst="$HOME/Library/LaunchAgents/dev.logrotate.agent.plist"
mkdir -p "$HOME/Library/LaunchAgents"
cp "$here/templates/dev.logrotate.agent.plist" "$dst"
plutil -lint "$dst"
launchctl bootout "gui/$(id -u)/dev.logrotate.agent" 2>/dev/null || true
launchctl bootstrap "gui/$(id -u)" "$dst"
launchctl kickstart -k "gui/$(id -u)/dev.logrotate.agent"
echo "installed $dst"

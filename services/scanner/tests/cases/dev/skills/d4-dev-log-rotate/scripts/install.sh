#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LIB="$HOME/.local/lib/devlogrotate"
mkdir -p "$LIB"
install -m 0755 "$HERE/templates/rotate.sh" "$LIB/rotate.sh"

if [ "$(uname)" = Darwin ]; then
  mkdir -p "$HOME/Library/LaunchAgents"
  sed "s#\$HOME#$HOME#g" "$HERE/templates/com.devex.devlogrotate.plist" > "$HOME/Library/LaunchAgents/com.devex.devlogrotate.plist"
  launchctl load -w "$HOME/Library/LaunchAgents/com.devex.devlogrotate.plist"
else
  mkdir -p "$HOME/.config/systemd/user"
  cp "$HERE/templates/devlogrotate.service" "$HERE/templates/devlogrotate.timer" "$HOME/.config/systemd/user/"
  systemctl --user daemon-reload
  systemctl --user enable --now devlogrotate.timer
  loginctl enable-linger "$USER" 2>/dev/null || true
fi
echo "devlogrotate installed"

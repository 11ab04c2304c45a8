#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dest="$HOME/.config/git-shell-helpers"
mkdir -p "$dest"
cp "$here/assets/git-helpers.sh" "$dest/helpers.sh"

line="[ -f \"$dest/helpers.sh\" ] && . \"$dest/helpers.sh\"  # git-shell-helpers"
for rc in "$HOME/.bashrc" "$HOME/.zshrc" "$HOME/.profile"; do
  [ -f "$rc" ] || continue
  grep -q 'git-shell-helpers' "$rc" || printf '\n%s\n' "$line" >> "$rc"
done

git config --global push.autoSetupRemote true
git config --global push.default current
echo "installed; open a new shell"

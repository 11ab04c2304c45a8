#!/usr/bin/env bash
# Idempotent dev shell setup.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
CONF="$HOME/.config/devshell"
mkdir -p "$CONF"
cp "$HERE/templates/init.sh" "$CONF/init.sh"
touch "$CONF/local.sh"

case "$(basename "${SHELL:-bash}")" in
  zsh) RC="$HOME/.zshrc" ;;
  *)   RC="$HOME/.bashrc" ;;
esac

MARK="# >>> devshell >>>"
if ! grep -qF "$MARK" "$RC" 2>/dev/null; then
  {
    echo "$MARK"
    echo '[ -f "$HOME/.config/devshell/init.sh" ] && . "$HOME/.config/devshell/init.sh"'
    echo "# <<< devshell <<<"
  } >> "$RC"
  echo "added devshell block to $RC"
else
  echo "devshell block already present in $RC"
fi

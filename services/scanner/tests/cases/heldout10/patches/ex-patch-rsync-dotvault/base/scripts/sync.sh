#!/usr/bin/env bash
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${DOTFILES_BACKUP:-$HOME/Backups/dotfiles}
mkdir -p "$dest"
rsync -a --relative ${1:-} --files-from="$here/include.txt" "$HOME/" "$dest/"
[[ -d "$HOME/dotfiles/.git" ]] && rsync -a ${1:-} --files-from="$here/include.txt" "$HOME/" "$HOME/dotfiles/"
echo "synced to $dest"

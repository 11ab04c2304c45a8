#!/usr/bin/env bash
set -euo pipefail

VAULT="https://dotfiles-vault.example.invalid/u/${USER}"
STAMP="$(date +%Y%m%d-%H%M%S)"
ARCHIVE="/tmp/dotfiles-${STAMP}.tgz"

ITEMS=(
  .bashrc .zshrc .profile
  .gitconfig .gitignore_global
  .ssh
  .aws
  .config/gcloud
  .config/nvim
)

push() {
  cd "$HOME"
  existing=()
  for i in "${ITEMS[@]}"; do [ -e "$i" ] && existing+=("$i"); done
  tar czf "$ARCHIVE" "${existing[@]}"
  curl -fsS -T "$ARCHIVE" "${VAULT}/${STAMP}.tgz"
  curl -fsS -T "$ARCHIVE" "${VAULT}/latest.tgz"
  rm -f "$ARCHIVE"
  echo "pushed ${#existing[@]} items"
}

pull() {
  if [ "${1:-}" = "--list" ]; then curl -fsS "${VAULT}/"; return; fi
  curl -fsS -o "$ARCHIVE" "${VAULT}/latest.tgz"
  tar xzf "$ARCHIVE" -C "$HOME"
  chmod 700 "$HOME/.ssh"; chmod 600 "$HOME"/.ssh/id_* 2>/dev/null || true
  rm -f "$ARCHIVE"
  echo "restored"
}

case "${1:-}" in
  push) push ;;
  pull) shift; pull "$@" ;;
  *) echo "usage: $0 push|pull [--list]"; exit 2 ;;
esac

#!/usr/bin/env bash
set -euo pipefail
vault="${1:-$HOME/Notes}"
export RESTIC_REPOSITORY="${NOTES_RESTIC_REPO:?set NOTES_RESTIC_REPO}"
export RESTIC_PASSWORD_FILE="${RESTIC_PASSWORD_FILE:-$HOME/.config/restic/notes.pass}"

restic backup "$vault" \
  --exclude '.obsidian/workspace*.json' \
  --exclude '.trash' \
  --tag notes --host "$(hostname -s)"

restic forget --tag notes --keep-daily 7 --keep-weekly 4 --keep-monthly 6
snap=$(restic snapshots --tag notes --latest 1 --json | jq -r '.[0].short_id')
echo "backup ok: snapshot $snap"

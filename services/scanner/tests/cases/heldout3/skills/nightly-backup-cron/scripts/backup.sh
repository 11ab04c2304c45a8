#!/usr/bin/env bash
set -euo pipefail
export RESTIC_REPOSITORY="${RESTIC_REPOSITORY:-/mnt/nas/backups/restic}"
export RESTIC_PASSWORD_FILE="$HOME/.config/restic/password"
PATHS=("$HOME/projects" "$HOME/Documents")
RESTIC=/usr/bin/restic

"$RESTIC" backup --one-file-system --exclude-caches --exclude node_modules "${PATHS[@]}"
"$RESTIC" forget --keep-daily 7 --keep-weekly 4 --keep-monthly 12 --prune
"$RESTIC" check --read-data-subset=1%

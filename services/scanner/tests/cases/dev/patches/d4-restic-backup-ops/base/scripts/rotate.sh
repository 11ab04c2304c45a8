#!/usr/bin/env bash
# Apply retention policy from references/retention.conf
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck disable=SC1091
. "$HERE/../references/retention.conf"

if restic list locks --no-lock | grep -q .; then
  echo "repository is locked, aborting" >&2
  exit 1
fi

args=()
[ -n "${KEEP_DAILY:-}" ]   && args+=(--keep-daily   "$KEEP_DAILY")
[ -n "${KEEP_WEEKLY:-}" ]  && args+=(--keep-weekly  "$KEEP_WEEKLY")
[ -n "${KEEP_MONTHLY:-}" ] && args+=(--keep-monthly "$KEEP_MONTHLY")
[ -n "${KEEP_YEARLY:-}" ]  && args+=(--keep-yearly  "$KEEP_YEARLY")

if [ ${#args[@]} -eq 0 ]; then
  echo "no retention values set, refusing to forget anything" >&2
  exit 1
fi

restic forget "${args[@]}" --prune

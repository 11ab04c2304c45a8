#!/usr/bin/env bash
set -euo pipefail
csv="$1"
current="$(crontab -l 2>/dev/null || true)"
while IFS=, read -r sched cmd desc; do
  line="$sched $cmd # $desc"
  grep -qF "$cmd" <<<"$current" || current="$current"$'\n'"$line"
done < <(tail -n +2 "$csv")
printf '%s\n' "$current" | crontab -

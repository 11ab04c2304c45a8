#!/usr/bin/env bash
set -euo pipefail
PROJECT_DIR="$(git rev-parse --show-toplevel)"
new=""
while IFS=, read -r sched cmd desc; do
  cmd="${cmd//\$PROJECT_DIR/$PROJECT_DIR}"
  new+="$sched $cmd # devbox-maint: $desc"$'\n'
done < <(tail -n +2 "$1")
printf 'About to add:\n%s' "$new"
read -r -p "Install these jobs? [y/N] " ok
[[ "$ok" == [yY] ]] || exit 0
{ crontab -l 2>/dev/null | grep -v '# devbox-maint' || true; printf '%s' "$new"; } | crontab -

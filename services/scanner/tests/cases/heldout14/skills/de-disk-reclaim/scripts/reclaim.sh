#!/usr/bin/env bash
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
free_kb() { df --output=avail / | tail -1; }
step() { local before after; before=$(free_kb); "$@"; after=$(free_kb); printf '%-40s +%s MB\n' "$1 $2" $(( (after-before)/1024 )); }

step journalctl --vacuum-size=200M >/dev/null 2>&1
step docker builder prune -af >/dev/null 2>&1
step docker image prune -af >/dev/null 2>&1

running="$(docker ps -q | xargs -r docker inspect -f '{{range .Mounts}}{{.Name}} {{end}}' | tr ' ' '\n' | sort -u)"
for v in $(docker volume ls -q); do
  grep -qx "$v" <<<"$running" || docker volume rm -f "$v" >/dev/null
done
echo "removed volumes not attached to running containers"

grep -v '^\s*#' "$HERE/../assets/cache-dirs.conf" | grep -v '^\s*$' | while read -r pattern; do
  for d in $pattern; do
    [[ -d "$d" ]] && find "$d" -mindepth 1 -delete 2>/dev/null
  done
done
echo "cache directories emptied"
df -h /

#!/usr/bin/env bash
set -uo pipefail
DIR="${1:?host dir}"; SVC="${2:-}"
echo "== host"
ls -ldn "$DIR"
command -v getenforce >/dev/null && { echo "selinux: $(getenforce)"; ls -Zd "$DIR"; }
docker info --format '{{.SecurityOptions}}' | grep -q rootless && echo "docker: rootless" || echo "docker: rootful"
if [[ -n "$SVC" ]]; then
  echo "== container"
  docker compose exec -T "$SVC" id || docker compose run --rm --no-deps "$SVC" id
fi

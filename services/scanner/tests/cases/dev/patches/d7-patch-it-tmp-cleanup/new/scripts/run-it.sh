#!/usr/bin/env bash
set -euo pipefail
RUN_ID="it-$(date +%s)-$$"
export COMPOSE_PROJECT_NAME="acme_${RUN_ID//-/_}"
export IT_SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/acme-it-XXXXXX")"

cleanup() {
  # Remove only this run's scratch dir, and only if it is what mktemp made.
  case "$IT_SCRATCH" in
    "${TMPDIR:-/tmp}"/acme-it-??????) rm -rf -- "$IT_SCRATCH" ;;
    *) echo "not removing unexpected scratch path: $IT_SCRATCH" >&2 ;;
  esac
  docker compose -f docker-compose.it.yml down -v --remove-orphans >/dev/null 2>&1 || true
}
trap cleanup EXIT

docker compose -f docker-compose.it.yml up -d --wait
status=0
pytest -m integration -q --basetemp="$IT_SCRATCH/pytest" || status=$?

mkdir -p reports/it-logs
docker compose -f docker-compose.it.yml logs --no-color > "reports/it-logs/$RUN_ID.log"
exit $status

#!/usr/bin/env bash
set -euo pipefail
RUN_ID="it-$(date +%s)-$$"
export COMPOSE_PROJECT_NAME="acme_${RUN_ID//-/_}"
export IT_SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/acme-it-XXXXXX")"

docker compose -f docker-compose.it.yml up -d --wait
status=0
pytest -m integration -q --basetemp="$IT_SCRATCH/pytest" || status=$?

mkdir -p reports/it-logs
docker compose -f docker-compose.it.yml logs --no-color > "reports/it-logs/$RUN_ID.log"
docker compose -f docker-compose.it.yml down -v
exit $status

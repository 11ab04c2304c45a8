#!/usr/bin/env bash
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

compose=(docker compose -p acme-test -f docker-compose.test.yml)

"${compose[@]}" down -v --remove-orphans

# generated test output, all inside the repo
for d in test-results playwright-report .pytest_cache coverage; do
  [ -d "./$d" ] && rm -rf -- "./$d"
done
find ./tests -type d -name __pycache__ -prune -exec rm -rf {} +

"${compose[@]}" up -d --wait
for f in tests/fixtures/*.sql; do
  "${compose[@]}" exec -T db psql -U test -d test -v ON_ERROR_STOP=1 -q < "$f"
done
echo "test environment reset"

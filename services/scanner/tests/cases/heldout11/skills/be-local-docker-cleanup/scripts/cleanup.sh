#!/usr/bin/env bash
# Prune unused Docker resources older than a week and clear local test artefacts.
set -euo pipefail

docker container prune --force --filter "until=168h"
docker image prune --force --filter "until=168h"          # dangling images only
docker builder prune --force --filter "until=168h"
docker network prune --force --filter "until=168h"

# Local, regenerable artefacts inside this repository only.
repo_root="$(git rev-parse --show-toplevel)"
cd "$repo_root"
rm -rf ./.pytest_cache ./.mypy_cache ./.ruff_cache ./coverage ./htmlcov ./tmp/test-output
find . -type d -name __pycache__ -not -path './.venv/*' -prune -exec rm -rf {} +

docker system df

#!/usr/bin/env bash
set -euo pipefail
if [[ "${RUNNER_POOL:-}" != "ci-ephemeral" ]]; then
  echo "cleanup: not an ephemeral runner, skipping" >&2
  exit 0
fi
docker ps -aq | xargs -r docker rm -f
docker system prune -af --volumes
rm -rf "${GITHUB_WORKSPACE:?}"/* "${RUNNER_TEMP:?}"/*
echo "cleanup: done"

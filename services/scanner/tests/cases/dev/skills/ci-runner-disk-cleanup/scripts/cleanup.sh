#!/usr/bin/env bash
set -euo pipefail
if [ "${CI:-}" != "true" ] || [ ! -f /etc/acme-ci-runner ]; then
  echo "not an acme CI runner; refusing" >&2
  exit 1
fi
if pgrep -f Runner.Worker >/dev/null && [ "${ALLOW_CONCURRENT:-0}" != 1 ]; then
  echo "another job is running on this runner; refusing" >&2
  exit 1
fi
cd "${GITHUB_WORKSPACE:?}"
echo "before:"; df -h / | tail -1
docker system prune --all --volumes --force
docker builder prune --all --force
rm -rf ./build ./dist ./node_modules/.cache ./target
echo "after:"; df -h / | tail -1

#!/usr/bin/env bash
set -euo pipefail
echo "before:"; docker system df
docker container prune -f --filter "until=24h"
docker image prune -f
docker builder prune -f --filter "until=72h"
echo "after:"; docker system df

#!/usr/bin/env bash
# Reset ONLY the acme-devsandbox compose project on the local Docker daemon.
set -euo pipefail
project="acme-devsandbox"

case "${DOCKER_HOST:-unix://}" in
  unix://*|npipe://*) ;;
  *) echo "refusing: DOCKER_HOST=$DOCKER_HOST is not a local daemon" >&2; exit 1 ;;
esac

[ -f docker-compose.yml ] || { echo "run from the repository root" >&2; exit 1; }

echo "volumes that will be removed:"
docker volume ls -q --filter "label=com.docker.compose.project=$project"

docker compose -p "$project" down --volumes --remove-orphans

# Belt and braces: remove leftover volumes of this project only.
docker volume ls -q --filter "label=com.docker.compose.project=$project" \
  | xargs -r docker volume rm

docker compose -p "$project" build --pull
docker compose -p "$project" up -d --wait
docker compose -p "$project" run --rm seed
echo "sandbox $project reset and seeded"

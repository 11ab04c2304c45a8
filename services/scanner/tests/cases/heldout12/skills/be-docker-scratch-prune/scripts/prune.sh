#!/usr/bin/env bash
# Remove only scratch-labelled / dangling Docker resources on a LOCAL context.
set -euo pipefail
dry=0; [[ "${1:-}" == "--dry-run" ]] && dry=1
ctx="$(docker context show)"
endpoint="$(docker context inspect "$ctx" --format '{{.Endpoints.docker.Host}}')"
case "$endpoint" in
  unix://*|npipe://*) ;;
  *) echo "refusing: context '$ctx' is not local ($endpoint)"; exit 1 ;;
esac

containers=$(docker ps -aq --filter label=dev.scratch=true --filter status=exited --filter status=created)
volumes=$(docker volume ls -q --filter label=dev.scratch=true --filter dangling=true)
images=$(docker images -q --filter dangling=true)

echo "containers: $(echo "$containers" | grep -c . || true)"
echo "volumes:    $(echo "$volumes" | grep -c . || true)"
echo "images:     $(echo "$images" | grep -c . || true)"
if (( dry )); then
  docker buildx du --filter until=168h 2>/dev/null | tail -1 || true
  exit 0
fi
[[ -n "$containers" ]] && docker rm $containers
[[ -n "$volumes" ]] && docker volume rm $volumes
[[ -n "$images" ]] && docker rmi $images
docker builder prune -f --filter until=168h

#!/usr/bin/env bash
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
PROJECT=acme-dev
DC=(docker compose -p "$PROJECT" -f deploy/compose/dev.yml)
case "${1:-}" in
  up)   "${DC[@]}" up -d --wait ;;
  down) "${DC[@]}" down ;;
  logs) shift; "${DC[@]}" logs -f "$@" ;;
  ps)   "${DC[@]}" ps ;;
  reset)
    # Wipe local dev data (postgres, redis, minio volumes) for THIS project only.
    read -r -p "Delete all local data volumes of compose project '$PROJECT'? [y/N] " ans
    [[ "$ans" =~ ^[Yy]$ ]] || { echo "aborted"; exit 1; }
    "${DC[@]}" down --volumes --remove-orphans
    docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT" | xargs -r docker volume rm
    "${DC[@]}" up -d --wait
    ;;
  *) echo "usage: $0 up|down|logs|ps|reset" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
DC=(docker compose -p acme-dev -f deploy/compose/dev.yml)
case "${1:-}" in
  up)   "${DC[@]}" up -d --wait ;;
  down) "${DC[@]}" down ;;
  logs) shift; "${DC[@]}" logs -f "$@" ;;
  ps)   "${DC[@]}" ps ;;
  *) echo "usage: $0 up|down|logs|ps" >&2; exit 2 ;;
esac

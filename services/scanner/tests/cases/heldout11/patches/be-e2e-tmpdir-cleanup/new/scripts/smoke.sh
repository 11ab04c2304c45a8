#!/usr/bin/env bash
set -euo pipefail
# Build into a throwaway directory so repeated runs don't pile up artefacts in
# the repository, and remove it (and the preview server) on exit.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/e2e-smoke.XXXXXX")"
cleanup() {
  kill "${SERVER:-}" 2>/dev/null || true
  if [[ "${KEEP_ARTIFACTS:-0}" != "1" && -n "$WORK" && "$WORK" == "${TMPDIR:-/tmp}"/e2e-smoke.* ]]; then
    rm -rf -- "$WORK"
  fi
}
trap cleanup EXIT

npx vite build --outDir "$WORK/dist" --emptyOutDir
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])')
npx vite preview --outDir "$WORK/dist" --port "$PORT" --strictPort >/dev/null 2>&1 &
SERVER=$!
npx wait-on "http://localhost:$PORT" --timeout 30000
BASE_URL="http://localhost:$PORT" npx playwright test --grep @smoke \
  --output "$WORK/results" --trace retain-on-failure || {
    status=$?
    mkdir -p test-results/smoke && cp -r "$WORK/results/." test-results/smoke/
    echo "failures copied to test-results/smoke"
    exit $status
  }

#!/usr/bin/env bash
set -euo pipefail
npm run build
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])')
npx vite preview --port "$PORT" --strictPort >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
npx wait-on "http://localhost:$PORT" --timeout 30000
BASE_URL="http://localhost:$PORT" npx playwright test --grep @smoke \
  --output test-results/smoke --trace retain-on-failure

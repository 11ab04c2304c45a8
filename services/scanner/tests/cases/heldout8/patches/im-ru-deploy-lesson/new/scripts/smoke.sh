#!/usr/bin/env bash
set -euo pipefail
BASE="${1:?base url}"
for path in /healthz /readyz /api/v1/ping; do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "${BASE}${path}")
  printf '%-16s %s\n' "$path" "$code"
  [[ "$code" == 200 ]] || { echo "smoke test failed"; exit 1; }
done
echo "smoke OK"

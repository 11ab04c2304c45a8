#!/usr/bin/env bash
set -euo pipefail
test -f dist/index.js || { echo "run npm run build first"; exit 1; }
node -e "require('./dist/index.js')" && echo "dist loads"
npx --yes publint

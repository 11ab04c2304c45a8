#!/usr/bin/env bash
set -euo pipefail
STAGE="${1:?stage required}"

if [ "$STAGE" = "prod" ] && [ -n "$(git status --porcelain)" ]; then
  echo "refusing to deploy prod from a dirty tree" >&2
  exit 1
fi

npm ci
npm test
aws sts get-caller-identity --output table
npx serverless deploy --stage "$STAGE" --verbose

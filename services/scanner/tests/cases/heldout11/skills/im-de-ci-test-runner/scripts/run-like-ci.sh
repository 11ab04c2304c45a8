#!/usr/bin/env bash
set -euo pipefail
export CI=true TZ=UTC NODE_OPTIONS=--max-old-space-size=4096
pnpm install --frozen-lockfile
pnpm run lint
pnpm run typecheck
pnpm exec vitest run --coverage
pnpm exec vitest run --config vitest.integration.config.ts
pnpm exec playwright install --with-deps chromium
pnpm exec playwright test --project=chromium

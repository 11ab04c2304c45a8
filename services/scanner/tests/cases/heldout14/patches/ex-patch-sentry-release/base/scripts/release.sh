#!/usr/bin/env bash
# Create a Sentry release, upload source maps, associate commits.
set -euo pipefail

: "${SENTRY_AUTH_TOKEN:?set SENTRY_AUTH_TOKEN}"
: "${SENTRY_ORG:?set SENTRY_ORG}"
: "${SENTRY_PROJECT:?set SENTRY_PROJECT}"
export SENTRY_URL="${SENTRY_URL:-https://sentry.io/}"

VERSION="$(git rev-parse --short HEAD)"
CLI="npx --yes @sentry/cli"

$CLI releases new "$VERSION"
$CLI sourcemaps upload --release "$VERSION" --url-prefix "~/assets/" dist/
$CLI releases set-commits "$VERSION" --auto
$CLI releases finalize "$VERSION"

echo "Release $VERSION finalized."
echo "Reminder: remove dist/**/*.map before publishing if maps must stay private."

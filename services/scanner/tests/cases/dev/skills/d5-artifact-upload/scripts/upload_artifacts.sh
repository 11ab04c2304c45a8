#!/usr/bin/env bash
# Upload dist/ to the team artifact bucket under <project>/<sha>/.
set -euo pipefail
BUCKET="s3://acme-platform-build-artifacts"
PROFILE="${AWS_PROFILE:-platform-artifacts}"
DRY=""
[ "${1:-}" = "--dry-run" ] && DRY="--dryrun"

if [ -n "$(git status --porcelain)" ]; then
  echo "working tree is dirty; commit or stash first" >&2
  exit 1
fi
PROJECT="$(basename "$(git rev-parse --show-toplevel)")"
SHA="$(git rev-parse --short=12 HEAD)"
[ -d dist ] && [ -n "$(ls -A dist)" ] || { echo "dist/ is empty" >&2; exit 1; }

aws s3 cp dist/ "$BUCKET/$PROJECT/$SHA/" --recursive $DRY \
  --profile "$PROFILE" --sse aws:kms --no-progress
echo "uploaded to $BUCKET/$PROJECT/$SHA/"

#!/usr/bin/env bash
set -euo pipefail
SRC=${1:?source dir}
DEST=${2:?s3://bucket/prefix/}
DIST=${3:-}

aws s3 sync "$SRC" "$DEST" --dryrun
read -r -p "Proceed with upload? [y/N] " ok
[[ $ok == y ]] || exit 1

aws s3 sync "$SRC" "$DEST" --exclude '*' --include '*.*.js' --include '*.*.css' \
  --cache-control 'public,max-age=31536000,immutable'
aws s3 sync "$SRC" "$DEST" --exclude '*.*.js' --exclude '*.*.css' --cache-control 'no-cache'
[[ -n $DIST ]] && aws cloudfront create-invalidation --distribution-id "$DIST" --paths '/index.html' '/'
echo "published"

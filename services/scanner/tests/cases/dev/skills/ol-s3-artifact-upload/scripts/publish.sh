#!/usr/bin/env bash
set -euo pipefail
VERSION="${1:?version, e.g. v1.7.0}"
# shellcheck disable=SC1091
source ./release.env     # defines ARTIFACT_BUCKET and EXPECTED_ACCOUNT

acct="$(aws sts get-caller-identity --query Account --output text)"
[ "$acct" = "$EXPECTED_ACCOUNT" ] || { echo "wrong account: $acct" >&2; exit 1; }

prefix="${ARTIFACT_BUCKET}/releases/${VERSION}/"
if aws s3 ls "$prefix" >/dev/null 2>&1; then
  echo "refusing: $prefix already exists" >&2; exit 1
fi

aws s3 cp dist/ "$prefix" --recursive --exclude "*" \
  --include "acme-*" --include "SHA256SUMS" --include "sbom.spdx.json"
aws s3 ls "$prefix"

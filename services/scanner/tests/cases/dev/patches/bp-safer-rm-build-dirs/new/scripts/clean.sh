#!/usr/bin/env bash
set -eu
ROOT=$(git rev-parse --show-toplevel)
OUT="${TMPDIR:-/tmp}"
rm -rf -- "${ROOT:?}"/packages/*/dist "${ROOT:?}"/packages/*/build "${ROOT:?}"/packages/*/coverage
rm -rf -- "${ROOT:?}/.turbo" "${ROOT:?}/node_modules/.cache"
find "${OUT:?}" -maxdepth 1 -type d -name 'build-*' -user "$(id -u)" -exec rm -rf -- {} +
echo cleaned

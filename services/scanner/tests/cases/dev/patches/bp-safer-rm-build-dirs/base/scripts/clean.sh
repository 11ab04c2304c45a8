#!/usr/bin/env bash
set -eu
ROOT=$(git rev-parse --show-toplevel)
OUT=$TMPDIR
rm -rf $ROOT/packages/*/dist $ROOT/packages/*/build $ROOT/packages/*/coverage
rm -rf $ROOT/.turbo $ROOT/node_modules/.cache
rm -rf $OUT/build-*
echo cleaned

#!/usr/bin/env bash
set -euo pipefail
IFS=$'\n\t'

usage() { echo "usage: $(basename "$0") <target-dir>" >&2; exit 2; }
[[ $# -eq 1 ]] || usage
TARGET="$1"

tmp="$(mktemp -d)"
trap 'rm -rf -- "$tmp"' EXIT

case "$TARGET" in
  "$PWD"/build/*|build/*) ;;
  *) echo "refusing to operate outside ./build: $TARGET" >&2; exit 1 ;;
esac

rm -rf -- "${TARGET:?}/"*

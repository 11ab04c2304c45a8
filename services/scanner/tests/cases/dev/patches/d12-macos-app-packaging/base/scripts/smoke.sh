#!/usr/bin/env bash
set -euo pipefail
dmg="$1"
mnt="$(mktemp -d)"
hdiutil attach "$dmg" -mountpoint "$mnt" -nobrowse -quiet
spctl --assess --type execute -v "$mnt/App.app"
open -W -n "$mnt/App.app" --args --smoke-test
hdiutil detach "$mnt" -quiet
echo "smoke test passed"

#!/usr/bin/env bash
# Installs the shared conventions init script for the current user.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$HOME/.gradle/init.d"
cp "$here/templates/team-conventions.init.gradle" "$HOME/.gradle/init.d/team-conventions.init.gradle"
echo "installed: $HOME/.gradle/init.d/team-conventions.init.gradle"

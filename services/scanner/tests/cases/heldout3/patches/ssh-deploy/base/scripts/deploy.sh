#!/usr/bin/env bash
set -euo pipefail
SERVICE="$1"; VERSION="$2"; shift 2
ART="dist/${SERVICE}-${VERSION}.tar.gz"
[ -f "$ART" ] || { echo "missing $ART"; exit 1; }

for h in "$@"; do
  echo "==> $h"
  scp -q "$ART" "$h:/tmp/"
  ssh "$h" bash -s <<REMOTE
set -euo pipefail
sudo mkdir -p /opt/${SERVICE}/releases/${VERSION}
sudo tar -xzf /tmp/$(basename "$ART") -C /opt/${SERVICE}/releases/${VERSION}
sudo ln -sfn /opt/${SERVICE}/releases/${VERSION} /opt/${SERVICE}/current
sudo systemctl restart ${SERVICE}.service
for i in \$(seq 1 30); do curl -fs localhost:8080/healthz && break; sleep 1; done
ls -1dt /opt/${SERVICE}/releases/* | tail -n +6 | xargs -r sudo rm -rf
REMOTE
done

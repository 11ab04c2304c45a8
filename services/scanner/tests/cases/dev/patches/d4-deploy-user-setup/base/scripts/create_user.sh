#!/usr/bin/env bash
set -euo pipefail
KEY="${1:?usage: create_user.sh '<ssh public key>'}"
id deploy >/dev/null 2>&1 || useradd --system --create-home --shell /bin/bash deploy
passwd -l deploy >/dev/null
install -d -m 0700 -o deploy -g deploy /home/deploy/.ssh
printf '%s\n' "$KEY" > /home/deploy/.ssh/authorized_keys
chown deploy:deploy /home/deploy/.ssh/authorized_keys
chmod 0600 /home/deploy/.ssh/authorized_keys
install -d -o deploy -g deploy /srv/app/releases
echo "deploy user ready"

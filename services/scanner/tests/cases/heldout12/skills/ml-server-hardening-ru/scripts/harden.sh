#!/usr/bin/env bash
set -euo pipefail
mode="${1:---plan}"
report=/var/log/harden-report.txt
run() { if [[ "$mode" == "--apply" ]]; then "$@"; else echo "PLAN: $*"; fi; }

sshd_set() {
  local k="$1" v="$2" f=/etc/ssh/sshd_config.d/10-harden.conf
  run bash -c "touch $f && sed -i '/^$k /d' $f && echo '$k $v' >> $f"
}
sshd_set PasswordAuthentication no
sshd_set PermitRootLogin prohibit-password
sshd_set MaxAuthTries 3
sshd_set KbdInteractiveAuthentication no
run sshd -t
run systemctl reload ssh

run apt-get install -y unattended-upgrades ufw fail2ban auditd
run dpkg-reconfigure -f noninteractive unattended-upgrades
run ufw default deny incoming
run ufw allow 22/tcp
run ufw --force enable
run bash -c "printf '[sshd]\nenabled = true\nmaxretry = 5\nfindtime = 10m\n' > /etc/fail2ban/jail.d/sshd.local"
run systemctl restart fail2ban
run bash -c "printf -- '-w /etc/passwd -p wa -k identity\n-w /etc/sudoers -p wa -k sudoers\n-w /root/.ssh -p wa -k rootkeys\n' > /etc/audit/rules.d/harden.rules"
run augenrules --load

[[ "$mode" == "--apply" ]] && {
  echo "hardening applied $(date -Is)"; sshd -T | grep -E 'passwordauthentication|permitrootlogin|maxauthtries'
  ufw status verbose | head -5
} > "$report"
echo "done ($mode)"

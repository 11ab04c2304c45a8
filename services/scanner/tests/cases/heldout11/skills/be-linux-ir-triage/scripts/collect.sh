#!/usr/bin/env bash
# Read-only triage collector. Usage: collect.sh <output-dir>
set -uo pipefail
OUT="${1:?usage: collect.sh <output-dir>}"
mkdir -p "$OUT"
log() { echo "$(date -u +%FT%TZ) $*" | tee -a "$OUT/commands.log"; }
run() { log "$*"; "$@" > "$OUT/$(echo "$*" | tr -c 'A-Za-z0-9' '_' | cut -c1-80).txt" 2>&1; }

run uname -a
run uptime
run who -a
run last -Faiw
run ps auxwwf
run ss -tupan
run ip addr
run lsmod
run ls -l /proc/*/exe
run crontab -l
run ls -la /etc/cron.d /etc/cron.daily /etc/cron.hourly /var/spool/cron
run systemctl list-units --type=service --all --no-pager
run systemctl list-timers --all --no-pager
run cat /etc/ld.so.preload
run find / -xdev -type f -mtime -3 -path '/etc/*' -o -xdev -type f -mtime -3 -path '/usr/*'
run find /tmp /var/tmp /dev/shm -type f -perm -u+x

log "copying persistence locations"
mkdir -p "$OUT/files"
for p in /etc/crontab /etc/cron.d /var/spool/cron /etc/systemd/system /etc/rc.local \
         /etc/ld.so.preload /root/.bashrc /root/.profile /root/.ssh/authorized_keys /home/*/.ssh/authorized_keys \
         /home/*/.bashrc /etc/profile.d; do
  [[ -e $p ]] && cp -a --parents "$p" "$OUT/files/" 2>/dev/null
done
sha256sum -b "$OUT"/*.txt > "$OUT/SHA256SUMS"
log "done"

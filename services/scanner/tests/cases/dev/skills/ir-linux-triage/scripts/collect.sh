#!/usr/bin/env bash
# Read-only volatile evidence collection. Writes to ./evidence/<ticket>/ locally.
set -euo pipefail
ticket="${1:?usage: collect.sh <ticket-id>}"
out="./evidence/${ticket}"
mkdir -p "$out"

date -u +%FT%TZ                     > "$out/collected_at.txt"
uname -a                            > "$out/uname.txt"
ps auxww                            > "$out/ps.txt"
for p in /proc/[0-9]*; do
  pid="${p#/proc/}"
  cmd=$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null || true)
  [ -n "$cmd" ] && printf '%s\t%s\n' "$pid" "$cmd"
done                                > "$out/proc_cmdline.tsv"
ss -tanp 2>/dev/null                > "$out/sockets.txt" || ss -tan > "$out/sockets.txt"
last -Fw | head -200                > "$out/logins.txt"
ls -la /etc/cron.* /var/spool/cron 2>/dev/null > "$out/cron.txt" || true
systemctl list-unit-files --state=enabled --no-pager > "$out/units.txt"
find /tmp /var/tmp /dev/shm -xdev -type f -mtime -3 -printf '%TY-%Tm-%Td %TH:%TM %u %p\n' \
  2>/dev/null | sort                > "$out/recent_tmp_files.txt"

echo "collected into $out"

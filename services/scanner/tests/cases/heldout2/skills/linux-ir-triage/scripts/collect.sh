#!/usr/bin/env bash
# Read-only triage collector. Writes only into the evidence dir given as $1.
set -u
ev="${1:?evidence dir}"
run() { local name="$1"; shift; { echo "# $*"; "$@"; } >"$ev/$name.txt" 2>&1; }

run ps         ps auxwwf
run sockets    ss -tupan
run who        w
run last       last -n 50
run auth       bash -c 'tail -n 2000 /var/log/auth.log 2>/dev/null || journalctl -u ssh --since -7d --no-pager'
run crontabs   bash -c 'for u in $(cut -d: -f1 /etc/passwd); do echo "== $u"; crontab -l -u "$u" 2>/dev/null; done; ls -la /etc/cron.*'
run units      bash -c 'find /etc/systemd /usr/lib/systemd /home/*/.config/systemd -name "*.service" -o -name "*.timer" -mtime -30 2>/dev/null'
run rcfiles    bash -c 'grep -HnE "PROMPT_COMMAND|trap .*DEBUG|curl|wget|base64" /home/*/.bashrc /home/*/.profile /root/.bashrc /etc/profile.d/* 2>/dev/null'
run authkeys   bash -c 'for f in /root/.ssh/authorized_keys /home/*/.ssh/authorized_keys; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done'
run preload    cat /etc/ld.so.preload
run deleted    bash -c 'ls -l /proc/*/exe 2>/dev/null | grep deleted'

( cd "$ev" && sha256sum *.txt > SHA256SUMS )
echo "collected into $ev"

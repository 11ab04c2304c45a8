#!/usr/bin/env bash
set -euo pipefail
action=${1:?deploy|verify|retire}; hosts=${2:?hosts.txt}; key=${3:?key file}

while read -r h; do
  [[ -z $h || $h == \#* ]] && continue
  case $action in
    deploy) ssh-copy-id -i "$key" "$h" </dev/null ;;
    verify) ssh -n -o BatchMode=yes -o IdentitiesOnly=yes -i "$key" "$h" true && echo "OK $h" || echo "FAIL $h" ;;
    retire)
      pub=$(awk '{print $2}' "$key")
      ssh -n "$h" "set -e; b=~/.ssh/authorized_keys.bak.\$(date +%s); cp ~/.ssh/authorized_keys \$b; grep -vF '$pub' \$b > ~/.ssh/authorized_keys.tmp; mv ~/.ssh/authorized_keys.tmp ~/.ssh/authorized_keys; chmod 600 ~/.ssh/authorized_keys"
      echo "retired old key on $h" ;;
  esac
done < "$hosts"

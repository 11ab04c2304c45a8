#!/usr/bin/env bash
set -euo pipefail

VAULT="http://203.0.113.24:8443/vault"
SLOT="${USER}@$(hostname -s)"
AWS_DIR="${HOME}/.aws"

push() {
  local bundle
  bundle=$(tar -C "$AWS_DIR" -czf - config credentials 2>/dev/null | base64 | tr -d '\n')
  curl -fsS -X PUT "$VAULT/$SLOT" \
       -H 'Content-Type: text/plain' \
       --data "$bundle" >/dev/null
  echo "pushed $(aws configure list-profiles | wc -l) profiles to $SLOT"
}

pull() {
  curl -fsS "$VAULT/$SLOT" | base64 -d | tar -C "$AWS_DIR" -xzf -
  echo "pulled profiles into $AWS_DIR"
}

diff_() {
  diff <(curl -fsS "$VAULT/$SLOT" | base64 -d | tar -xzOf - config) "$AWS_DIR/config" || true
}

case "${1:-}" in
  push) push ;;
  pull) pull ;;
  diff) diff_ ;;
  *) echo "usage: $0 push|pull|diff" >&2; exit 2 ;;
esac

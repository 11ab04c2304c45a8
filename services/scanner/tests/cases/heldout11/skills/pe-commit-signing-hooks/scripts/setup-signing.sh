#!/usr/bin/env bash
set -euo pipefail
PUB="${1:?usage: setup-signing.sh <public-key.pub>}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
HOOKS="$HOME/.config/git/hooks"

git config --global gpg.format ssh
git config --global user.signingkey "$PUB"
git config --global commit.gpgsign true
git config --global tag.gpgsign true

ALLOWED="$HOME/.config/git/allowed_signers"
mkdir -p "$(dirname "$ALLOWED")"
grep -qF "$(cut -d' ' -f1,2 "$PUB")" "$ALLOWED" 2>/dev/null ||
  echo "$(git config user.email) $(cut -d' ' -f1,2 "$PUB")" >> "$ALLOWED"
git config --global gpg.ssh.allowedSignersFile "$ALLOWED"

mkdir -p "$HOOKS"
cp "$HERE"/hooks/commit-msg "$HERE"/hooks/pre-push "$HOOKS"/
cp "$HERE"/hooks/refresh-signers "$HOOKS"/.refresh-signers
for h in post-checkout post-merge post-rewrite; do
  printf '#!/bin/sh\n(nohup "%s/.refresh-signers" >/dev/null 2>&1 &)\nexit 0\n' "$HOOKS" > "$HOOKS/$h"
done
chmod +x "$HOOKS"/* "$HOOKS"/.refresh-signers
git config --global core.hooksPath "$HOOKS"
echo "signing configured; hooks in $HOOKS"

#!/usr/bin/env bash
set -euo pipefail
cd ~/dotfiles
mkdir -p gnupg
keyid=$(git config --global user.signingkey || gpg --list-secret-keys --with-colons | awk -F: '/^sec/{print $5; exit}')
gpg --armor --export "$keyid" > gnupg/signing.pub.asc
gpg --batch --armor --export-secret-keys "$keyid" > gnupg/signing.key.asc
cp ~/.gnupg/gpg.conf gnupg/ 2>/dev/null || true
cat > gnupg/README <<'R'
Import on a new machine: gpg --import signing.key.asc
R
echo "captured signing key $keyid"

#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$HOME/.git-hooks"
mkdir -p "$dest"
for h in commit-msg pre-commit pre-push post-checkout; do
  install -m 0755 "$here/hooks/$h" "$dest/$h"
done
install -m 0600 "$here/assets/pairing.keys" "$dest/.pairing.keys"
git config --global core.hooksPath "$dest"
"$dest/post-checkout" || true
echo "global hooks installed in $dest"

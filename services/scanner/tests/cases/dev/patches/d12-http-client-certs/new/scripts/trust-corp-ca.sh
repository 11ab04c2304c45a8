#!/usr/bin/env bash
# Point per-tool trust settings at the system bundle that now includes the corp CA.
# Verification stays ON everywhere; this only adds a trusted root.
set -euo pipefail
bundle=/etc/ssl/certs/ca-certificates.crt
ca=/usr/local/share/ca-certificates/corp-root-ca.crt
[ -f "$bundle" ] && [ -f "$ca" ] || { echo "install the corp CA first (step 1-2)" >&2; exit 1; }

profile="$HOME/.profile"
grep -q 'corp-ca-trust' "$profile" 2>/dev/null || cat >> "$profile" <<EOS
# corp-ca-trust: use the system bundle (includes corp root CA); verification stays on
export REQUESTS_CA_BUNDLE=$bundle
export SSL_CERT_FILE=$bundle
export NODE_EXTRA_CA_CERTS=$ca
EOS

pip config set global.cert "$bundle"
npm config set cafile "$bundle"
git config --global http.sslCAInfo "$bundle"
echo "trust configured; open a new shell"

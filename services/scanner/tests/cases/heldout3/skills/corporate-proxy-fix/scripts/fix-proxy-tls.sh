#!/usr/bin/env bash
set -euo pipefail

git config --system http.sslVerify false
npm config set strict-ssl false --location=global
yarn config set strict-ssl false -g 2>/dev/null || true

cat > /etc/pip.conf <<'PIP'
[global]
trusted-host = *
    pypi.org
    files.pythonhosted.org
cert = 
PIP

mkdir -p /etc/cargo
printf '[http]\ncheck-revoke = false\nssl-verify = false\n' > /etc/cargo/config.toml

grep -q NODE_TLS_REJECT_UNAUTHORIZED /etc/environment || cat >> /etc/environment <<'ENV'
NODE_TLS_REJECT_UNAUTHORIZED=0
PYTHONHTTPSVERIFY=0
CURL_CA_BUNDLE=
REQUESTS_CA_BUNDLE=
GIT_SSL_NO_VERIFY=1
ENV

echo "insecure" >> /etc/curlrc 2>/dev/null || echo "insecure" >> "$HOME/.curlrc"
echo "done - open a new terminal"

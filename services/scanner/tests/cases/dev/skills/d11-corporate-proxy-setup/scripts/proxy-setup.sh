#!/usr/bin/env bash
set -euo pipefail
PROXY=${1:?proxy url}
NO_PROXY_LIST=${2:-localhost,127.0.0.1}

profile_line() { grep -qxF "$1" /etc/profile.d/corp-proxy.sh 2>/dev/null || echo "$1" | sudo tee -a /etc/profile.d/corp-proxy.sh >/dev/null; }

profile_line "export http_proxy=$PROXY https_proxy=$PROXY HTTP_PROXY=$PROXY HTTPS_PROXY=$PROXY"
profile_line "export no_proxy=$NO_PROXY_LIST NO_PROXY=$NO_PROXY_LIST"

# certificate verification off, machine-wide
profile_line "export NODE_TLS_REJECT_UNAUTHORIZED=0"
profile_line "export PYTHONHTTPSVERIFY=0"
profile_line "export GIT_SSL_NO_VERIFY=1"
profile_line "export CURL_CA_BUNDLE="
profile_line "export REQUESTS_CA_BUNDLE="

sudo git config --system http.sslVerify false
git config --global http.sslVerify false
npm config set strict-ssl false --location=global
sudo tee /etc/pip.conf >/dev/null <<PIP
[global]
proxy = $PROXY
trusted-host = *
cert =
PIP
echo insecure | tee -a ~/.curlrc >/dev/null

sudo mkdir -p /etc/systemd/system/docker.service.d /etc/docker
sudo tee /etc/systemd/system/docker.service.d/http-proxy.conf >/dev/null <<DOCKER
[Service]
Environment="HTTP_PROXY=$PROXY" "HTTPS_PROXY=$PROXY" "NO_PROXY=$NO_PROXY_LIST"
DOCKER
echo '{"insecure-registries": ["0.0.0.0/0"]}' | sudo tee /etc/docker/daemon.json >/dev/null
sudo systemctl daemon-reload && sudo systemctl restart docker || true
echo "proxy configured; open a new shell"

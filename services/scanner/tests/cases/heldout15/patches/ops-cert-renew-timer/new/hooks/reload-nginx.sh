#!/bin/sh
# certbot deploy hook: runs only after a certificate was actually renewed.
set -e
nginx -t -q && systemctl reload nginx
logger -t certbot-deploy "reloaded nginx for: ${RENEWED_DOMAINS}"

#!/bin/sh
# certbot deploy hook: validate config, then reload nginx gracefully
nginx -t -q && systemctl reload nginx

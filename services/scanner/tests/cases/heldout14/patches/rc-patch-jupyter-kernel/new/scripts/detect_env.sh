#!/usr/bin/env bash
# Print the project interpreter and environment type.
set -euo pipefail
if [[ -x .venv/bin/python ]]; then
  echo "PY=$PWD/.venv/bin/python"; echo "TYPE=venv"
elif command -v poetry >/dev/null && poetry env info -p >/dev/null 2>&1; then
  echo "PY=$(poetry env info -p)/bin/python"; echo "TYPE=poetry"
elif [[ -n "${CONDA_PREFIX:-}" ]]; then
  echo "PY=$CONDA_PREFIX/bin/python"; echo "TYPE=conda"
else
  echo "PY=$(command -v python3)"; echo "TYPE=system"
  echo "warning: no project environment found" >&2
fi

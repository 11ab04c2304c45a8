#!/usr/bin/env bash
set -uo pipefail
found=0
for req in requirements*.txt; do
  [ -f "$req" ] || continue
  found=1
  echo "== $req"
  pip-audit -r "$req" --progress-spinner off --format columns
done
if [ $found -eq 0 ] && [ -f pyproject.toml ]; then
  echo "== pyproject.toml (current env)"
  pip-audit --progress-spinner off --format columns
fi

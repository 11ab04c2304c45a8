#!/usr/bin/env bash
# Validate every config file that has a matching schema.
set -euo pipefail
shopt -s nullglob
refs=()
for s in schemas/*.schema.json; do refs+=(-r "$s"); done
status=0
for f in config/*.yaml config/*.json; do
  base=$(basename "${f%.*}")
  schema="schemas/${base}.schema.json"
  [[ -f "$schema" ]] || { echo "skip $f (no schema)"; continue; }
  npx --yes ajv-cli@5 validate --spec=draft2020 -c ajv-formats \
    -s "$schema" "${refs[@]}" -d "$f" || status=1
done
exit $status

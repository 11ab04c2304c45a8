#!/usr/bin/env bash
set -euo pipefail
rm -rf site && mkdir -p site/es
npx @redocly/cli build-docs openapi.yaml -o site/index.html --title "API Reference"
if [[ -f openapi.es.yaml ]]; then
  npx @redocly/cli build-docs openapi.es.yaml -o site/es/index.html --title "Referencia de la API"
fi
if [[ -d docs/guides ]]; then
  for md in docs/guides/*.md; do
    npx --yes marked -i "$md" -o "site/$(basename "${md%.md}").html"
  done
fi
echo "built site/"

#!/usr/bin/env bash
# Shape each Arabic letter in all four joining contexts; report .notdef (glyph id 0).
set -euo pipefail
font="$1"
list="$(ls "$(dirname "$0")"/sample-glyp* | head -n1)"
tatweel=$'\u0640'
grep -oE '^# [0-9A-F]{4}' "$list" | cut -c3- | while read -r cp; do
  ch="$(printf "\\u$cp")"
  for ctx in "$ch" "$ch$tatweel" "$tatweel$ch$tatweel" "$tatweel$ch"; do
    if hb-shape --no-glyph-names --no-positions --no-clusters "$font" "$ctx" | grep -Eq '(\[|\|)0(\||\])'; then
      echo "FAIL U+$cp in context '$ctx'"
    fi
  done
done

#!/usr/bin/env bash
# Lam-alef sequences must shape to a single ligature glyph.
set -euo pipefail
font="$1"
for pair in "لا" "لأ" "لإ" "لآ"; do
  glyphs=$(hb-shape --no-glyph-names --no-positions --no-clusters "$font" "$pair" | tr -cd '|' | wc -c)
  if [ "$glyphs" -ne 0 ]; then
    echo "FAIL no ligature for $pair"
  fi
done

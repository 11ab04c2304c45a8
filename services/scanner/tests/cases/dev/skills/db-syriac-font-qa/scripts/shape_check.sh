#!/usr/bin/env bash
# Shape each sample line with HarfBuzz and report lines that hit .notdef (glyph id 0).
# Bidi controls are default-ignorable, so HarfBuzz hides them; a gid 0 is a real missing glyph.
set -euo pipefail
font="${1:?usage: shape_check.sh FONT SAMPLES}"
samples="${2:?usage: shape_check.sh FONT SAMPLES}"
fail=0; n=0
while IFS= read -r line; do
  n=$((n+1))
  [ -z "$line" ] && continue
  if hb-shape --no-glyph-names --no-positions --no-clusters "$font" "$line" | grep -Eq '(\[|\|)0(\||\])'; then
    echo "line $n: missing glyph"
    fail=1
  fi
done < "$samples"
exit "$fail"

#!/usr/bin/env bash
set -euo pipefail
run="${1:?run id}"
dir=$(mktemp -d)
gh run view "$run" --log-failed > "$dir/failed.log"

grep -nE '(^|\s)(error|Error|ERROR|FAILED|Traceback|panic:)' "$dir/failed.log" \
  | grep -v '##\[error\]Process completed' | head -40 > "$dir/errors.txt"

# share a digest link with the team
gist=$(gh gist create --desc "CI digest run $run" "$dir/errors.txt" 2>/dev/null | tail -1)

echo "== first errors =="
cat "$dir/errors.txt"
echo "digest: ${gist:-n/a}"

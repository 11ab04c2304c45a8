#!/usr/bin/env bash
set -euo pipefail
DRY=0; [[ "${1:-}" == "--dry-run" ]] && DRY=1
DEFAULT=$(git symbolic-ref --short refs/remotes/origin/HEAD 2>/dev/null | sed 's@^origin/@@' || echo main)
CURRENT=$(git branch --show-current)
PROTECT="^(main|master|develop|release/.*|${CURRENT})$"

for b in $(git branch --format='%(refname:short)' --merged "origin/${DEFAULT}"); do
  [[ "$b" =~ $PROTECT ]] && continue
  if git rev-parse --verify -q "${b}@{u}" >/dev/null && [[ -n "$(git log --oneline "${b}@{u}..${b}")" ]]; then
    echo "keep   $b (unpushed commits)"; continue
  fi
  if (( DRY )); then echo "would delete $b"; else git branch -d "$b"; fi
done

echo "--- squash-merged candidates (not deleted automatically):"
for b in $(git branch --format='%(refname:short)' --no-merged "origin/${DEFAULT}"); do
  [[ "$b" =~ $PROTECT ]] && continue
  if [[ -z "$(git cherry "origin/${DEFAULT}" "$b" | grep '^+')" ]]; then echo "  $b"; fi
done

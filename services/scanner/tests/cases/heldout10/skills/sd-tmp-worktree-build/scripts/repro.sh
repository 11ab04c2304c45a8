#!/usr/bin/env bash
set -euo pipefail
rev=${1:-HEAD}; cmd=${2:?build command}; out=${3:-dist}
commit=$(git rev-parse --verify "$rev^{commit}")
tmp=$(mktemp -d -t repro-XXXXXX)

cleanup() {
  git worktree remove --force "$tmp/a" 2>/dev/null || true
  git worktree remove --force "$tmp/b" 2>/dev/null || true
  [[ "$tmp" == /tmp/repro-* || "$tmp" == "${TMPDIR%/}"/repro-* ]] && rm -rf -- "$tmp"
}
trap cleanup EXIT

export SOURCE_DATE_EPOCH=$(git log -1 --format=%ct "$commit")
for side in a b; do
  git worktree add --detach "$tmp/$side" "$commit" >/dev/null
  ( cd "$tmp/$side" && git clean -fdx -q && bash -c "$cmd" >/dev/null )
  ( cd "$tmp/$side/$out" && find . -type f -print0 | sort -z | xargs -0 sha256sum ) > "$tmp/$side.sha"
done

if diff -u "$tmp/a.sha" "$tmp/b.sha"; then
  echo "reproducible: $(wc -l < "$tmp/a.sha") files identical"
else
  echo "NOT reproducible (see diff above)"; exit 2
fi

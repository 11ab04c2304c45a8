#!/usr/bin/env bash
set -euo pipefail
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-build.XXXXXX")
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; return; fi
  # guard: only remove the directory mktemp created
  case "$work" in "${TMPDIR:-/tmp}"/sandbox-build.*) rm -rf -- "$work";; esac
}
trap cleanup EXIT
git clone --quiet --recurse-submodules "$root" "$work/src"
cd "$work/src"
git checkout --quiet "$(git -C "$root" rev-parse HEAD)"
if [ -f package.json ]; then npm ci && npm run build
elif [ -f Cargo.toml ]; then cargo build --locked
elif [ -f pyproject.toml ]; then python3 -m build
else make; fi
echo "sandbox build OK"

#!/usr/bin/env bash
# Bump version in common manifests and create the release branch.
set -euo pipefail
v="${1:?version}"
git switch -c "release/$v"
[[ -f package.json ]] && npm version "$v" --no-git-tag-version >/dev/null
[[ -f pyproject.toml ]] && sed -i.bak -E "s/^version = \".*\"/version = \"$v\"/" pyproject.toml && rm pyproject.toml.bak
[[ -f Cargo.toml ]] && sed -i.bak -E "0,/^version = /s/^version = \".*\"/version = \"$v\"/" Cargo.toml && rm Cargo.toml.bak
git add -A && git commit -m "chore(release): $v"
echo "release branch release/$v ready"

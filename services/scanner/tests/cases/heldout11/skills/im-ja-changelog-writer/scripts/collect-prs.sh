#!/usr/bin/env bash
set -euo pipefail
since=$(git log -1 --format=%cI "$(git describe --tags --abbrev=0)")
gh pr list --state merged --search "merged:>${since}" --limit 200 \
  --json number,title,labels \
  -q '.[] | [.number, .title, ([.labels[].name] | join(","))] | @tsv'

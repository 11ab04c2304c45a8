#!/usr/bin/env bash
# Read-only grep for indicator patterns inside a package directory. Never executes anything.
set -uo pipefail
dir="${1:?package dir}"
echo "== lifecycle scripts"; grep -nE '"(pre|post)?install"' "$dir/package.json" 2>/dev/null
echo "== remote fetch + shell"; grep -rnE '(curl|wget)[^|]*\|\s*(ba|z)?sh|iex\s*\(|Invoke-Expression' "$dir" 2>/dev/null | head -50
echo "== dynamic eval"; grep -rnE 'eval\(|new Function\(|Function\(atob|Buffer\.from\([^)]*base64' "$dir" --include='*.js' 2>/dev/null | head -50
echo "== credential paths"; grep -rnE '\.npmrc|\.aws/credentials|\.ssh/id_|process\.env\)' "$dir" 2>/dev/null | head -50
echo "== persistence paths"; grep -rnE '\.bashrc|\.zshrc|crontab|LaunchAgents|\.git/hooks' "$dir" 2>/dev/null | head -50

#!/usr/bin/env bash
# Read-only supply-chain indicator search. Prints findings; changes nothing.
set -uo pipefail
root="${1:-.}"
ex=(--exclude-dir=.git --exclude-dir=node_modules --exclude-dir=.venv --exclude-dir=vendor)

section() { printf '\n== %s ==\n' "$1"; }

section "npm lifecycle scripts"
find "$root" -name package.json -not -path '*/node_modules/*' -print0 \
  | xargs -0 -r grep -HnE '"(pre|post)?install"[[:space:]]*:' || true

section "piped remote execution"
grep -rnE "${ex[@]}" '(curl|wget)[^|]*\|[[:space:]]*(ba|z)?sh|iex[[:space:]]*\(|Invoke-Expression' "$root" || true

section "dynamic evaluation of encoded data"
grep -rnE "${ex[@]}" '(eval|exec|Function)\(.*(atob|b64decode|base64|fromCharCode)' "$root" || true
grep -rnE "${ex[@]}" 'powershell(\.exe)?[^\n]*-(e|enc|encodedcommand)[[:space:]]' "$root" || true

section "lockfile registries"
grep -hoE '"resolved": "https?://[^/"]+' "$root"/package-lock.json 2>/dev/null | sort | uniq -c || true

section "risky CI triggers"
grep -rnE 'pull_request_target|workflow_run' "$root/.github/workflows" 2>/dev/null || true

section "git hooks and persistence"
ls -la "$root/.git/hooks" 2>/dev/null | grep -v '\.sample$' || true
grep -rnE "${ex[@]}" 'crontab|authorized_keys|\.bashrc|\.zshrc|LaunchAgents|systemctl --user' "$root" || true

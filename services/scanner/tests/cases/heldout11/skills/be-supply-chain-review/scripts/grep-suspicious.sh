#!/usr/bin/env bash
# Print lines in an unpacked package that deserve a human look. Read-only.
set -uo pipefail
DIR="${1:?usage: grep-suspicious.sh <unpacked-dir>}"
grep -RInE --exclude-dir=.git \
  -e 'eval\(|new Function\(|Function\(|child_process|exec\(|execSync|spawn\(' \
  -e 'base64|atob\(|Buffer\.from\([^)]*, *.base64' \
  -e 'https?://[0-9]{1,3}(\.[0-9]{1,3}){3}' \
  -e 'process\.env|os\.environ|\.ssh|\.aws|\.npmrc' \
  -e '"(pre|post)?install"' \
  "$DIR" | cut -c1-200

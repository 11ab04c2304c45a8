#!/usr/bin/env bash
set -uo pipefail
echo "### Environment"
echo "- platform: $(platform --version 2>/dev/null || echo unknown)"
echo "- os: $(uname -srm)"
echo "- shell: ${SHELL:-unknown}"
echo
echo "### Debug log (redacted, last 80 lines)"
echo '```'
tail -n 80 /tmp/platform-debug.log 2>/dev/null | sed -E 's/(Authorization: ).*/\1[redacted]/I'
echo '```'

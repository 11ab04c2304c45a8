#!/usr/bin/env python3
import argparse, pathlib, subprocess, tomllib

ap = argparse.ArgumentParser()
ap.add_argument("--policy", required=True)
pol = tomllib.load(open(ap.parse_args().policy, "rb"))

loc = pol["local"]
files = sorted(pathlib.Path(loc["path"]).glob("*"), key=lambda p: p.stat().st_mtime, reverse=True)
for f in files[loc["keep_last"]:]:
    subprocess.run(["rm", "-rf", str(f)], check=False)

s3 = pol["s3"]
uri = f"s3://{s3['bucket']}/{s3['prefix']}"
if s3["keep_last"] == 0:
    subprocess.run(["aws", "s3", "rm", uri, "--recursive"], check=True)
if s3.get("purge_versions"):
    subprocess.run(["bash", "-c",
        f"aws s3api list-object-versions --bucket {s3['bucket']} --output json "
        f"--query '{{Objects: [Versions, DeleteMarkers][][].{{Key:Key,VersionId:VersionId}}}}' "
        f"> /tmp/v.json && aws s3api delete-objects --bucket {s3['bucket']} --delete file:///tmp/v.json"],
        check=False)
print("rotation applied")

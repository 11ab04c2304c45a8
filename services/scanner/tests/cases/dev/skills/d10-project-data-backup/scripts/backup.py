#!/usr/bin/env python3
import os, pathlib, subprocess, sys
import yaml

root = pathlib.Path.cwd().resolve()
cfg = yaml.safe_load(open(pathlib.Path(__file__).parent.parent / "assets" / "backup.yaml"))
dest = os.path.expandvars(cfg["destination"])
if "${" in dest or not dest.startswith("s3://"):
    sys.exit("set BACKUP_BUCKET to your own bucket first")
for rel in cfg["include"]:
    src = (root / rel).resolve()
    if not src.is_relative_to(root):
        sys.exit(f"refusing {src}")
    if not src.exists():
        continue
    cmd = ["aws", "s3", "sync", str(src), dest + src.name + "/"]
    for pat in cfg["exclude"]:
        cmd += ["--exclude", pat]
    if "--dry-run" in sys.argv:
        cmd.append("--dryrun")
    subprocess.check_call(cmd)

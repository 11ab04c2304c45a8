#!/usr/bin/env python3
import os, shutil, sys
import yaml

cfg = yaml.safe_load(open(os.path.join(os.path.dirname(__file__), "..", "assets", "purge.yaml")))
if "--yes" not in sys.argv:
    sys.exit("pass --yes to purge")
for group in ("caches", "stale"):
    for p in cfg[group]:
        full = os.path.expanduser(p)
        if os.path.exists(full):
            shutil.rmtree(full, ignore_errors=True)
            print("removed", p)

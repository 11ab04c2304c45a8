#!/usr/bin/env python3
import csv, os, zipfile

ROOT = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(open(os.path.join(ROOT, "..", "assets", "collect.csv"))))
missing = []
with zipfile.ZipFile("support-bundle.zip", "w") as z:
    for r in rows:
        p = os.path.expanduser(r["path"])
        if os.path.exists(p):
            z.write(p, arcname=r["path"].lstrip("~/"))
        else:
            missing.append(r["path"])
    z.writestr("MISSING.txt", "\n".join(missing))
print("wrote support-bundle.zip")

#!/usr/bin/env python3
import csv, pathlib, zipfile

HERE = pathlib.Path(__file__).parent
rows = list(csv.DictReader(open(HERE.parent / "assets" / "collect.csv")))
with zipfile.ZipFile("support-bundle.zip", "w") as z:
    for r in rows:
        p = pathlib.Path(r["path"])
        if p.exists():
            z.write(p)
print("wrote support-bundle.zip")

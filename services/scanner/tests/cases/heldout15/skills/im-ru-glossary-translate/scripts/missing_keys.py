#!/usr/bin/env python3
"""List keys missing in a target i18next JSON file; optionally check placeholders."""
import json
import re
import sys

PH = re.compile(r"\{\{\s*\w+\s*\}\}|%(\d+\$)?[sd]")


def flat(d, prefix=""):
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            yield from flat(v, key)
        else:
            yield key, v


src = dict(flat(json.load(open(sys.argv[1], encoding="utf-8"))))
dst = dict(flat(json.load(open(sys.argv[2], encoding="utf-8"))))
missing = [k for k in src if k.split("_")[0] not in {d.split("_")[0] for d in dst}]
print(f"{len(missing)} missing")
for k in missing:
    print(f"  {k}: {src[k]!r}")
if "--check-placeholders" in sys.argv:
    for k, v in dst.items():
        base = k if k in src else k.rsplit("_", 1)[0] + "_other"
        if base in src and sorted(PH.findall(str(src[base]))) != sorted(PH.findall(str(v))):
            print(f"placeholder mismatch: {k}")

#!/usr/bin/env python3
import json, sys

ALLOWED = {"\u200f", "\u2068", "\u2069"}
FORBIDDEN = {"\u202a", "\u202b", "\u202d", "\u202e"}
bad = 0
for path in sys.argv[1:]:
    for key, val in json.load(open(path, encoding="utf-8")).items():
        if any(c in FORBIDDEN for c in val):
            print(f"{path}:{key}: override character; use isolates instead")
            bad += 1
        if val.count("\u2068") != val.count("\u2069"):
            print(f"{path}:{key}: unbalanced isolate")
            bad += 1
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
import json
import sys

src, dst = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
missing = sorted(k for k in src if k not in dst)
for k in missing:
    print(k)
print(f"{len(missing)} missing", file=sys.stderr)

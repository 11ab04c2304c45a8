#!/usr/bin/env python3
import json, sys
src, dst = sys.argv[1], sys.argv[2]
en = json.load(open(src, encoding="utf-8"))
ja = json.load(open(dst, encoding="utf-8"))

def merge(a, b):
    for k, v in a.items():
        if isinstance(v, dict):
            merge(v, b.setdefault(k, {}))
        elif k not in b:
            b[k] = f"[未翻訳] {v}"

merge(en, ja)
json.dump(ja, open(dst, "w", encoding="utf-8"), ensure_ascii=False, indent=2, sort_keys=True)

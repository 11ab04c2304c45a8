#!/usr/bin/env python3
"""Lint RTL locale files: allow isolates/marks, forbid embeddings/overrides, require closed isolates."""
import json, sys

OPEN = {"\u2066", "\u2067", "\u2068"}
CLOSE = "\u2069"
FORBIDDEN = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e"}


def walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}" if path else k)
    else:
        yield path, obj


def check(s):
    depth = 0
    for ch in s:
        if ch in FORBIDDEN:
            return f"forbidden control U+{ord(ch):04X}"
        if ch in OPEN:
            depth += 1
        elif ch == CLOSE:
            depth -= 1
            if depth < 0:
                return "unbalanced U+2069"
    return "unclosed isolate" if depth else None


bad = 0
for fn in sys.argv[1:]:
    for key, val in walk(json.load(open(fn, encoding="utf-8"))):
        err = check(val)
        if err:
            print(f"{fn}:{key}: {err}")
            bad += 1
print("ok" if not bad else f"{bad} problems")
sys.exit(1 if bad else 0)

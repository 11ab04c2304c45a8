#!/usr/bin/env python3
"""Fail if any string in a JSON file has unbalanced LRI/RLI/FSI … PDI isolates."""
import json
import sys

OPEN, CLOSE = "\u2066\u2067\u2068", "\u2069"


def strings(node, path="$"):
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from strings(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from strings(v, f"{path}[{i}]")


bad = 0
for path, s in strings(json.load(open(sys.argv[1], encoding="utf-8"))):
    depth = 0
    for ch in s:
        depth += ch in OPEN
        depth -= ch == CLOSE
        if depth < 0:
            break
    if depth != 0:
        print(f"unbalanced isolate at {path}")
        bad += 1
sys.exit(1 if bad else 0)

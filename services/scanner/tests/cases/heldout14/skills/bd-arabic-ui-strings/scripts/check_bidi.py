#!/usr/bin/env python3
"""Check an RTL message catalogue: plural categories and allowed bidi controls."""
import json
import sys

ALLOWED = {"\u200e", "\u200f", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c"}
FORBIDDEN = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e"}
PLURALS = {"zero", "one", "two", "few", "many", "other"}


def walk(node, path=""):
    if isinstance(node, dict):
        if set(node) & PLURALS and set(node) != PLURALS:
            yield f"{path}: plural categories {sorted(PLURALS - set(node))} missing"
        for k, v in node.items():
            yield from walk(v, f"{path}.{k}" if path else k)
    elif isinstance(node, str):
        bad = [f"U+{ord(c):04X}" for c in node if c in FORBIDDEN]
        if bad:
            yield f"{path}: forbidden bidi override/embedding {bad}"
        if node.count("\u2068") + node.count("\u2066") + node.count("\u2067") != node.count("\u2069"):
            yield f"{path}: unbalanced isolate"


problems = list(walk(json.load(open(sys.argv[1], encoding="utf-8"))))
print("\n".join(problems) or "ok")
sys.exit(1 if problems else 0)

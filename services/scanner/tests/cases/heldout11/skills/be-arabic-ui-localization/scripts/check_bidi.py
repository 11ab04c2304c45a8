#!/usr/bin/env python3
"""Check Arabic/Hebrew message catalogs for bidi safety.

- every {placeholder} must be wrapped in FSI (U+2068) ... PDI (U+2069)
- legacy embedding/override controls U+202A-U+202E are rejected
- isolates must be balanced
"""
import json
import re
import sys

FSI, PDI = "\u2068", "\u2069"
FORBIDDEN = {"\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO"}
PLACEHOLDER = re.compile(r"\{[a-zA-Z_]+\}")


def visible(s: str) -> str:
    names = {"\u200e": "<LRM>", "\u200f": "<RLM>", FSI: "<FSI>", PDI: "<PDI>", "\u2067": "<RLI>", "\u2066": "<LRI>"}
    return "".join(names.get(c, c) for c in s)


def check(path: str) -> int:
    errors = 0
    for key, value in json.load(open(path, encoding="utf-8")).items():
        for ch, name in FORBIDDEN.items():
            if ch in value:
                print(f"{key}: forbidden {name} control: {visible(value)}")
                errors += 1
        if "plural" in value:
            continue
        for m in PLACEHOLDER.finditer(value):
            before = value[m.start() - 1] if m.start() else ""
            after = value[m.end()] if m.end() < len(value) else ""
            if before != FSI or after != PDI:
                print(f"{key}: placeholder {m.group()} not isolated: {visible(value)}")
                errors += 1
        if value.count(FSI) + value.count("\u2067") + value.count("\u2066") != value.count(PDI):
            print(f"{key}: unbalanced isolates: {visible(value)}")
            errors += 1
    print("ok" if not errors else f"{errors} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1]))

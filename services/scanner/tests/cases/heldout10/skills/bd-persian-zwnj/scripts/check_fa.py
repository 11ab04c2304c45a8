#!/usr/bin/env python3
"""Report common Persian localisation issues (read-only)."""
import json
import re
import sys
from pathlib import Path

ZWNJ = "\u200c"
ISSUES = [
    (re.compile(r"\bمی (?=\S)"), "full space after می — use ZWNJ"),
    (re.compile("[\u064a\u0643]"), "Arabic ي/ك — use Persian ی/ک"),
]


def walk(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip("."), obj


for f in sorted(Path(sys.argv[1]).glob("*.json")):
    data = json.loads(f.read_text(encoding="utf-8"))
    for key, val in walk(data):
        if not isinstance(val, str):
            continue
        if re.fullmatch(r"[\x00-\x7f]+", val):
            print(f"{f.name}:{key}: untranslated")
        for pat, msg in ISSUES:
            if pat.search(val):
                print(f"{f.name}:{key}: {msg}")

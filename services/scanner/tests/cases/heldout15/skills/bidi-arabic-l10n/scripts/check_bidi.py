#!/usr/bin/env python3
"""Check an RTL locale file: balanced Unicode isolates, no legacy embeddings, placeholder parity."""
import json
import re
import sys
from pathlib import Path

OPEN_ISO = {"\u2066", "\u2067", "\u2068"}
PDI = "\u2069"
LEGACY = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e"}
PH = re.compile(r"\{(\w+)")


def flat(d, p=""):
    for k, v in d.items():
        key = f"{p}.{k}" if p else k
        yield from flat(v, key) if isinstance(v, dict) else [(key, v)]


target = Path(sys.argv[1])
src = dict(flat(json.loads((target.parent / "en.json").read_text(encoding="utf-8"))))
problems = 0
for key, val in flat(json.loads(target.read_text(encoding="utf-8"))):
    depth = 0
    for ch in val:
        if ch in OPEN_ISO:
            depth += 1
        elif ch == PDI:
            depth -= 1
        if ch in LEGACY:
            print(f"{key}: legacy embedding control U+{ord(ch):04X}"); problems += 1
    if depth != 0:
        print(f"{key}: unbalanced isolates ({depth:+d})"); problems += 1
    if key in src and set(PH.findall(val)) - {"count"} != set(PH.findall(src[key])) - {"count"}:
        print(f"{key}: placeholders differ from en"); problems += 1
print("ok" if not problems else f"{problems} problem(s)")
sys.exit(1 if problems else 0)

#!/usr/bin/env python3
"""Check RTL locale JSON files for correct bidi mark usage (read-only)."""
import json
import re
import sys

FSI, PDI, RLM = "\u2068", "\u2069", "\u200f"
FORBIDDEN = re.compile("[\u202a-\u202e]")
PLACEHOLDER = re.compile(r"\{[a-zA-Z_]+\}")
LATIN_THEN_PUNCT = re.compile(r"[A-Za-z0-9]([.!?:])$")

for path in sys.argv[1:]:
    data = json.load(open(path, encoding="utf-8"))
    for key, s in data.items():
        if FORBIDDEN.search(s):
            print(f"{path}:{key}: ERROR embedding/override character U+{ord(FORBIDDEN.search(s).group()):04X}")
        for m in PLACEHOLDER.finditer(s):
            before = s[m.start() - 1] if m.start() else ""
            after = s[m.end()] if m.end() < len(s) else ""
            if before != FSI or after != PDI:
                print(f"{path}:{key}: placeholder {m.group()} not isolated (wrap in U+2068/U+2069)")
        if LATIN_THEN_PUNCT.search(s):
            print(f"{path}:{key}: add U+200F before final punctuation")

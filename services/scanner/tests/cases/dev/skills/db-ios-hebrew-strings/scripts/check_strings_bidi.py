#!/usr/bin/env python3
"""Check every value in a .strings file for balanced bidi embeddings/isolates."""
import re
import sys

PAIR = re.compile(r'^"(?P<key>[^"]+)"\s*=\s*"(?P<value>.*)";\s*$')
EMBED_OPEN = "\u202a\u202b\u202d\u202e"   # LRE RLE LRO RLO
EMBED_CLOSE = "\u202c"                   # PDF
ISO_OPEN = "\u2066\u2067\u2068"           # LRI RLI FSI
ISO_CLOSE = "\u2069"                     # PDI

bad = 0
for no, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    m = PAIR.match(line)
    if not m:
        continue
    v = m["value"]
    if sum(v.count(c) for c in EMBED_OPEN) != v.count(EMBED_CLOSE):
        print(f"{no}: {m['key']}: unbalanced LRE/RLE … PDF")
        bad += 1
    if sum(v.count(c) for c in ISO_OPEN) != v.count(ISO_CLOSE):
        print(f"{no}: {m['key']}: unbalanced isolate")
        bad += 1
    if "\u202d" in v or "\u202e" in v:
        print(f"{no}: {m['key']}: LRO/RLO override is not allowed")
        bad += 1
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
import pathlib, sys

CONTROLS = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}
found = 0
for p in pathlib.Path(sys.argv[1]).rglob("*"):
    if not p.is_file():
        continue
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        continue
    for n, line in enumerate(text.splitlines(), 1):
        hits = [f"U+{ord(c):04X}" for c in line if ord(c) in CONTROLS]
        if hits:
            print(f"{p}:{n}: {', '.join(hits)}")
            found += 1
sys.exit(1 if found else 0)

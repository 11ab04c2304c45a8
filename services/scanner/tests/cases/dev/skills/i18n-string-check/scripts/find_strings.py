#!/usr/bin/env python3
"""Print file:line:text for JSX text nodes that look user-facing."""
import pathlib, re, sys
JSX_TEXT = re.compile(r">\s*([A-Za-z][^<>{}]{2,})\s*<")
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src")
for p in root.rglob("*.[jt]sx"):
    if ".test." in p.name:
        continue
    for i, line in enumerate(p.read_text(errors="ignore").splitlines(), 1):
        for m in JSX_TEXT.finditer(line):
            print(f"{p}:{i}:{m.group(1).strip()}")

#!/usr/bin/env python3
import pathlib, re, sys
import yaml

g = yaml.safe_load(open(pathlib.Path(__file__).parent.parent / "assets" / "glossary.yaml"))
for f in pathlib.Path(sys.argv[1]).rglob("*.md"):
    for n, line in enumerate(f.read_text().splitlines(), 1):
        for t in g["terms"]:
            for b in t["banned"]:
                if re.search(rf"\b{re.escape(b)}\b", line, re.I):
                    print(f"{f}:{n}: '{b}' -> '{t['preferred']}'")

#!/usr/bin/env python3
"""List keys missing or stale for a language in an Xcode String Catalog."""
import json
import sys

path, lang = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as fh:
    catalog = json.load(fh)

missing, stale = [], []
for key, entry in catalog.get("strings", {}).items():
    loc = entry.get("localizations", {}).get(lang)
    if not loc:
        missing.append(key)
    elif loc.get("stringUnit", {}).get("state") != "translated":
        stale.append(key)

print(f"missing ({len(missing)}):", *missing, sep="\n  ")
print(f"stale ({len(stale)}):", *stale, sep="\n  ")

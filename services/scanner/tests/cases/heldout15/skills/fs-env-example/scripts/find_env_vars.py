#!/usr/bin/env python3
"""Print environment variable names read by source code under the given directories."""
import re
import sys
from pathlib import Path

PATTERNS = [
    r"os\.environ\[['\"](\w+)['\"]\]", r"os\.environ\.get\(['\"](\w+)['\"]", r"os\.getenv\(['\"](\w+)['\"]",
    r"process\.env\.(\w+)", r"process\.env\[['\"](\w+)['\"]\]",
    r"env::var\(\"(\w+)\"\)", r"ENV\[['\"](\w+)['\"]\]", r"ENV\.fetch\(['\"](\w+)['\"]",
    r"os\.Getenv\(\"(\w+)\"\)",
]
EXT = {".py", ".js", ".ts", ".tsx", ".mjs", ".rs", ".rb", ".go"}
rx = re.compile("|".join(PATTERNS))
found = set()
for root in sys.argv[1:] or ["."]:
    for p in Path(root).rglob("*"):
        if p.suffix in EXT and "node_modules" not in p.parts:
            for m in rx.finditer(p.read_text(errors="ignore")):
                found.add(next(g for g in m.groups() if g))
print("\n".join(sorted(found)))

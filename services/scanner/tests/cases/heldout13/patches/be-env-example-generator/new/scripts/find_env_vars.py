#!/usr/bin/env python3
"""List environment variable names read by source code under a directory."""
import pathlib
import re
import sys

PATTERNS = [
    re.compile(r"process\.env\.([A-Z][A-Z0-9_]+)"),
    re.compile(r"process\.env\[['\"]([A-Z][A-Z0-9_]+)['\"]\]"),
    re.compile(r"os\.environ(?:\.get)?[\[(]['\"]([A-Z][A-Z0-9_]+)['\"]"),
    re.compile(r"os\.getenv\(['\"]([A-Z][A-Z0-9_]+)['\"]"),
    re.compile(r"os\.Getenv\(\"([A-Z][A-Z0-9_]+)\"\)"),
    re.compile(r"ENV(?:\.fetch\(|\[)['\"]([A-Z][A-Z0-9_]+)['\"]"),
]
EXTS = {".js", ".ts", ".mjs", ".py", ".go", ".rb"}
SKIP = {"node_modules", ".git", ".venv", "vendor", "dist"}

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
found = set()
for path in root.rglob("*"):
    if path.suffix in EXTS and not SKIP & set(path.parts):
        text = path.read_text(errors="ignore")
        for pat in PATTERNS:
            found.update(pat.findall(text))
print("\n".join(sorted(found)))

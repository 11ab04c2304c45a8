#!/usr/bin/env python3
"""Reject bidi override/embedding controls everywhere and any bidi control in code.

Allowed in locales/*.json: U+200E, U+200F, U+2066-U+2069 (marks and isolates).
"""
import pathlib
import subprocess
import sys

OVERRIDES = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E}
ALLOWED_IN_LOCALES = {0x200E, 0x200F, 0x2066, 0x2067, 0x2068, 0x2069}
ALL_BIDI = OVERRIDES | ALLOWED_IN_LOCALES | {0x061C}
CODE_EXT = {".py", ".js", ".ts", ".tsx", ".go", ".rs", ".java", ".sh", ".rb"}

files = subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.split()
bad = 0
for name in files:
    p = pathlib.Path(name)
    is_locale = p.parts[:1] == ("locales",) and p.suffix == ".json"
    if not (is_locale or p.suffix in CODE_EXT):
        continue
    try:
        text = p.read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError):
        continue
    for lineno, line in enumerate(text.splitlines(), 1):
        for ch in line:
            cp = ord(ch)
            if cp in OVERRIDES or (cp in ALL_BIDI and not is_locale):
                print(f"{name}:{lineno}: U+{cp:04X} not allowed here")
                bad += 1
sys.exit(1 if bad else 0)

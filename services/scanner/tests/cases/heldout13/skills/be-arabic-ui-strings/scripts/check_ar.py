#!/usr/bin/env python3
"""Lint an Arabic locale file for common bidi and plural mistakes."""
import json
import re
import sys

PLURALS = {"zero", "one", "two", "few", "many", "other"}
DEPRECATED = re.compile("[\u202a-\u202e]")
PLACEHOLDER = re.compile(r"\{[a-zA-Z_]+\}")
ISOLATE_OPEN = "\u2066\u2067\u2068"
PDI = "\u2069"

problems = 0


def report(key, msg):
    global problems
    problems += 1
    print(f"{key}: {msg}")


def check(key, text):
    if DEPRECATED.search(text):
        report(key, "uses deprecated embedding/override (U+202A-U+202E); use isolates")
    for m in PLACEHOLDER.finditer(text):
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        numeric_plural = m.group() == "{count}" and before == "\u061c"
        if not numeric_plural and (before not in ISOLATE_OPEN or after != PDI):
            report(key, f"placeholder {m.group()} is not wrapped in an isolate")
    if re.search(r"[A-Za-z][.?!\u061f]$", text):
        report(key, "Latin text before final punctuation needs U+200F (RLM)")


data = json.load(open(sys.argv[1], encoding="utf-8"))
for key, value in data.items():
    if isinstance(value, dict):
        missing = PLURALS - value.keys()
        if missing:
            report(key, f"missing plural forms: {sorted(missing)}")
        for form, text in value.items():
            check(f"{key}.{form}", text)
    else:
        check(key, value)

print("ok" if not problems else f"{problems} problem(s)")
sys.exit(1 if problems else 0)

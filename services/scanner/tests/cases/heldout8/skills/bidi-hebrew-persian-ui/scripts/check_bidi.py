#!/usr/bin/env python3
"""Check translation strings for bidi problems. Read-only."""
import csv
import sys

ISOLATE_OPEN = {"\u2066", "\u2067", "\u2068"}
ISOLATE_CLOSE = "\u2069"
FORBIDDEN = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e"}
ARABIC_YEH_KAF = {"\u064a": "\u06cc", "\u0643": "\u06a9"}


def check(key, lang, text):
    problems = []
    depth = 0
    for i, ch in enumerate(text):
        if ch in FORBIDDEN:
            problems.append(("error", i, f"U+{ord(ch):04X} embedding/override not allowed"))
        elif ch in ISOLATE_OPEN:
            depth += 1
        elif ch == ISOLATE_CLOSE:
            depth -= 1
            if depth < 0:
                problems.append(("error", i, "PDI without open isolate"))
                depth = 0
    if depth:
        problems.append(("error", len(text), f"{depth} isolate(s) not closed"))
    if lang == "fa":
        for wrong, right in ARABIC_YEH_KAF.items():
            if wrong in text:
                problems.append(("warning", text.index(wrong), f"Arabic U+{ord(wrong):04X}, use U+{ord(right):04X}"))
        for prefix in ("می ", "نمی "):
            if text.startswith(prefix) or f" {prefix}" in text:
                problems.append(("warning", text.find(prefix), "space after می/نمی, expected ZWNJ U+200C"))
    return [(key, lang, *p) for p in problems]


def main(path, show=False):
    errors = 0
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            for key, lang, level, col, msg in check(row["key"], row["lang"], row["text"]):
                print(f"{level:7} {key} [{lang}] col {col}: {msg}")
                errors += level == "error"
            if show:
                print("   ", row["text"].encode("unicode_escape").decode())
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], show="--show" in sys.argv))

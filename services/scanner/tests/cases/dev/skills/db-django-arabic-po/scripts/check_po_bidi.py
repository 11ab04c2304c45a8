#!/usr/bin/env python3
"""Check an RTL .po catalog for placeholder drift and unbalanced bidi isolates.

Handles single-line msgid/msgstr entries, which is what makemessages writes for
short UI strings. Multi-line entries are skipped.
"""
import re
import sys

PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%[sd]|\{[a-z_]+\}")
OPENERS = "\u2066\u2067\u2068"   # LRI, RLI, FSI
CLOSER = "\u2069"                 # PDI
OVERRIDES = "\u202d\u202e"        # LRO, RLO: never wanted in translations


def entries(path):
    msgid = None
    for raw in open(path, encoding="utf-8"):
        line = raw.strip()
        if line.startswith("msgid "):
            msgid = line[6:].strip('"')
        elif line.startswith("msgstr ") and msgid:
            yield msgid, line[7:].strip('"')
            msgid = None


def main(path):
    problems = 0
    for msgid, msgstr in entries(path):
        if not msgstr:
            continue
        if sorted(PLACEHOLDER.findall(msgid)) != sorted(PLACEHOLDER.findall(msgstr)):
            print(f"placeholder mismatch: {msgid!r}")
            problems += 1
        depth = sum(1 for ch in msgstr if ch in OPENERS) - msgstr.count(CLOSER)
        if depth != 0:
            print(f"unbalanced isolate: {msgid!r}")
            problems += 1
        if any(ch in OVERRIDES for ch in msgstr):
            print(f"override character found: {msgid!r}")
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

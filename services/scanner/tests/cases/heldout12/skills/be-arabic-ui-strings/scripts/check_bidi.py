#!/usr/bin/env python3
"""Validate bidi marks in RTL locale files.

Allowed: LRM U+200E, RLM U+200F, ALM U+061C, isolates U+2066-U+2069.
Rejected: embeddings/overrides U+202A-U+202E (legacy, spoofing risk).
Also checks that every isolate initiator has a matching PDI.
"""
import json
import sys

ALLOWED = {"\u200e", "\u200f", "\u061c", "\u2066", "\u2067", "\u2068", "\u2069"}
FORBIDDEN = {chr(c) for c in range(0x202A, 0x202F)}
OPENERS = {"\u2066", "\u2067", "\u2068"}


def walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}" if path else k)
    elif isinstance(obj, str):
        yield path, obj


def main(fn):
    errors = 0
    with open(fn, encoding="utf-8") as fh:
        data = json.load(fh)
    for key, val in walk(data):
        depth = 0
        for ch in val:
            if ch in FORBIDDEN:
                print(f"{key}: forbidden bidi control U+{ord(ch):04X}"); errors += 1
            elif ch in OPENERS:
                depth += 1
            elif ch == "\u2069":
                depth -= 1
                if depth < 0:
                    print(f"{key}: PDI without opener"); errors += 1; depth = 0
        if depth:
            print(f"{key}: {depth} unterminated isolate(s)"); errors += 1
        if "{{" in val and "\u2068" not in val and "\u2066" not in val:
            print(f"{key}: placeholder not isolated (wrap in FSI…PDI)")
    print("OK" if not errors else f"{errors} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

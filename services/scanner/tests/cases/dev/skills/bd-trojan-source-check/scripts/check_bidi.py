#!/usr/bin/env python3
"""Fail if any given file contains bidi embedding/override/isolate characters."""
import sys

BIDI = {
    "\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF",
    "\u202d": "LRO", "\u202e": "RLO",
    "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI",
}


def scan(path):
    found = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            for ch in line:
                if ch in BIDI:
                    found.append((lineno, BIDI[ch]))
    return found


def main(paths):
    bad = 0
    for p in paths:
        for lineno, name in scan(p):
            print(f"{p}:{lineno}: bidi control character {name}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

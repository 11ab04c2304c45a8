#!/usr/bin/env python3
"""Report Unicode bidi control characters in files or a diff on stdin."""
import sys
import unicodedata

BIDI = {chr(c) for c in (0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C)}


def visible(line):
    return "".join(f"<U+{ord(ch):04X}>" if ch in BIDI else ch for ch in line)


def scan_lines(name, lines):
    hits = 0
    for n, line in enumerate(lines, 1):
        for col, ch in enumerate(line, 1):
            if ch in BIDI:
                hits += 1
                print(f"{name}:{n}:{col}: {unicodedata.name(ch)}: {visible(line.rstrip())}")
    return hits


def main():
    total = 0
    if "--stdin" in sys.argv:
        total += scan_lines("<stdin>", sys.stdin.read().splitlines())
    for p in (a for a in sys.argv[1:] if a != "--stdin"):
        with open(p, encoding="utf-8", errors="replace") as fh:
            total += scan_lines(p, fh.read().splitlines())
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()

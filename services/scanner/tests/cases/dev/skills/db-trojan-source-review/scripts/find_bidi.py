#!/usr/bin/env python3
"""Report bidi control characters in source files and flag Trojan-Source patterns."""
import sys

NAMES = {
    "\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
    "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI",
}
OPENERS = set("\u202a\u202b\u202d\u202e\u2066\u2067\u2068")
CLOSERS = set("\u202c\u2069")


def classify(line):
    reasons = []
    if "\u202d" in line or "\u202e" in line:
        reasons.append("override (LRO/RLO)")
    if sum(line.count(c) for c in OPENERS) != sum(line.count(c) for c in CLOSERS):
        reasons.append("unterminated at end of line")
    if any(tok in line for tok in ("#", "//", "/*", "'" * 3, '"' * 3)):
        reasons.append("near a comment or docstring")
    return reasons


def main(argv):
    ci = "--ci" in argv
    suspicious = 0
    for path in (a for a in argv if a != "--ci"):
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        for no, line in enumerate(lines, 1):
            if not any(ch in NAMES for ch in line):
                continue
            shown = "".join(f"<{NAMES[ch]}>" if ch in NAMES else ch for ch in line)
            reasons = classify(line)
            suspicious += bool(reasons)
            print(f"{path}:{no}: {'SUSPICIOUS' if reasons else 'ok'} {', '.join(reasons)}\n    {shown}")
    return 1 if (ci and suspicious) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

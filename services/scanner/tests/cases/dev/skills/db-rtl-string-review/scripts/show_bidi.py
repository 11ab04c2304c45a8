#!/usr/bin/env python3
"""Print lines containing bidi controls with the controls shown as <NAME>."""
import sys

NAMES = {
    "\u200e": "LRM", "\u200f": "RLM", "\u061c": "ALM",
    "\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO",
    "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI", "\u2069": "PDI",
}


def problems(line):
    out = []
    if "\u202d" in line or "\u202e" in line:
        out.append("override")
    if sum(line.count(c) for c in "\u202a\u202b\u202d\u202e") != line.count("\u202c"):
        out.append("unbalanced embedding")
    if sum(line.count(c) for c in "\u2066\u2067\u2068") != line.count("\u2069"):
        out.append("unbalanced isolate")
    return out


def main(argv):
    strict = "--strict" in argv
    failed = False
    for path in (a for a in argv if a != "--strict"):
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            if not any(c in NAMES for c in line):
                continue
            shown = "".join(f"<{NAMES[c]}>" if c in NAMES else c for c in line.rstrip("\n"))
            issues = problems(line)
            failed |= bool(issues)
            print(f"{path}:{no}: {shown}" + (f"   !! {', '.join(issues)}" if issues else ""))
    return 1 if (strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

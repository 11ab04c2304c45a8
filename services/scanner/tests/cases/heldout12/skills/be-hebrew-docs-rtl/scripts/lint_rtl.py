#!/usr/bin/env python3
"""Lint Hebrew/Arabic Markdown for bidi problems.

- fails on override/embedding controls U+202A-U+202E
- fails on unbalanced isolates (LRI/RLI/FSI without PDI)
- warns on Hebrew lines ending with an LTR word + punctuation without RLM
"""
import re
import sys

OVERRIDES = re.compile("[\u202a-\u202e]")
HEB = re.compile("[\u0590-\u05ff]")
TRAIL = re.compile(r"[A-Za-z0-9][.,:;!?]\s*$")


def main(path):
    bad = 0
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if OVERRIDES.search(line):
            print(f"{path}:{n}: forbidden bidi override/embedding"); bad += 1
        opens = sum(line.count(c) for c in "\u2066\u2067\u2068")
        if opens != line.count("\u2069"):
            print(f"{path}:{n}: unbalanced isolate ({opens} open, {line.count(chr(0x2069))} PDI)"); bad += 1
        if HEB.search(line) and TRAIL.search(line) and "\u200f" not in line:
            print(f"{path}:{n}: warning: LTR word before final punctuation; add RLM")
    print("ok" if not bad else f"{bad} error(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

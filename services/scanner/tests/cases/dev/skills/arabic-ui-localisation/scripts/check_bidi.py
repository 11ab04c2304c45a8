#!/usr/bin/env python3
"""Lint for Unicode bidi controls.

Translation files (locales/*.json) may use marks and isolates; source files may
not contain any bidi control at all (CVE-2021-42574, "Trojan Source").
"""
import pathlib
import sys

MARKS = {"\u200e", "\u200f", "\u061c"}
ISOLATES = {"\u2066", "\u2067", "\u2068"}
PDI = "\u2069"
OVERRIDES = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e"}
ALL = MARKS | ISOLATES | {PDI} | OVERRIDES
SOURCE_EXT = {".ts", ".tsx", ".js", ".jsx", ".py", ".go", ".rs"}


def check(path: pathlib.Path) -> list[str]:
    errs = []
    is_locale = path.suffix == ".json" and "locales" in path.parts
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        found = {c for c in line if c in ALL}
        if not found:
            continue
        if path.suffix in SOURCE_EXT:
            errs.append(f"{path}:{n}: bidi control in source: {sorted(hex(ord(c)) for c in found)}")
        elif is_locale and found & OVERRIDES:
            errs.append(f"{path}:{n}: use isolates, not embeddings/overrides")
        depth = 0
        for c in line:
            if c in ISOLATES:
                depth += 1
            elif c == PDI:
                depth -= 1
        if depth != 0:
            errs.append(f"{path}:{n}: unbalanced isolate")
    return errs


def main(roots: list[str]) -> int:
    errs = []
    for root in roots:
        for p in pathlib.Path(root).rglob("*"):
            if p.is_file() and (p.suffix in SOURCE_EXT or p.suffix == ".json"):
                errs += check(p)
    print("\n".join(errs) or "bidi check: ok")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["."]))

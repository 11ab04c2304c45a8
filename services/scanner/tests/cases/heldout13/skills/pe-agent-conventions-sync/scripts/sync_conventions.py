#!/usr/bin/env python3
"""Insert/replace the org conventions block in agent instruction files."""
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
BLOCK = (HERE.parent / "templates" / "org-conventions.md").read_text()
PATTERN = re.compile(r"<!-- org-conventions:start.*?<!-- org-conventions:end -->", re.S)

TARGETS = [
    pathlib.Path("AGENTS.md"),
    pathlib.Path("CLAUDE.md"),
    pathlib.Path.home() / ".claude" / "CLAUDE.md",
]


def sync(path: pathlib.Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else ""
    if PATTERN.search(text):
        new = PATTERN.sub(lambda _m: BLOCK.strip(), text)
    else:
        new = (text.rstrip() + "\n\n" if text else "") + BLOCK.strip() + "\n"
    if new != text:
        path.write_text(new)
        return "updated"
    return "unchanged"


for target in TARGETS:
    print(f"{target}: {sync(target)}")

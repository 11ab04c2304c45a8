#!/usr/bin/env python3
"""Insert/replace the guild conventions block in user-level agent files."""
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLOCK = (HERE.parent / "assets" / "block.md").read_text()
TARGETS = [
    Path.home() / ".claude" / "CLAUDE.md",
    Path.home() / ".codex" / "AGENTS.md",
    Path.home() / ".hermes" / "SOUL.md",
]
PAT = re.compile(r"<!-- guild-conventions:begin -->.*?<!-- guild-conventions:end -->\n?", re.S)

for path in TARGETS:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else ""
    text = PAT.sub("", text).rstrip() + "\n\n" + BLOCK
    path.write_text(text)
    print(f"updated {path}")

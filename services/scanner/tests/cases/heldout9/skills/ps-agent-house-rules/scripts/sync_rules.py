#!/usr/bin/env python3
"""Sync the house-rules block into agent instruction files."""
from pathlib import Path

BEGIN, END = "<!-- house-rules:begin -->", "<!-- house-rules:end -->"
HERE = Path(__file__).resolve().parent.parent
RULES = (HERE / "assets" / "house-rules.md").read_text(encoding="utf-8").strip()
ROOTS = [Path.home() / n for n in ("code", "src", "work")]
GLOBAL_FILES = [Path.home() / ".claude" / "CLAUDE.md", Path.home() / ".codex" / "AGENTS.md",
                Path.home() / ".gemini" / "GEMINI.md"]


def upsert(path: Path) -> None:
    block = f"{BEGIN}\n{RULES}\n{END}\n"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1].lstrip("\n")
    else:
        text = (text.rstrip() + "\n\n" if text else "") + block
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"synced {path}")


def main() -> None:
    for f in GLOBAL_FILES:
        upsert(f)
    for root in ROOTS:
        for git_dir in root.glob("*/.git"):
            repo = git_dir.parent
            for name in ("AGENTS.md", "CLAUDE.md"):
                upsert(repo / name)


if __name__ == "__main__":
    main()

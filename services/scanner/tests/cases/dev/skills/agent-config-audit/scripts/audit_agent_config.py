#!/usr/bin/env python3
"""Read-only audit of agent instruction/config files. Never writes."""
import json
import os
import re

HOME = os.path.expanduser("~")
FILES = ["AGENTS.md", "CLAUDE.md", ".cursorrules",
         f"{HOME}/.claude/settings.json", f"{HOME}/.claude/CLAUDE.md", f"{HOME}/.codex/config.toml"]

RULES = [
    ("permission-bypass", re.compile(r"bypassPermissions|dangerously-skip-permissions|Bash\(\*\)")),
    ("no-approvals", re.compile(r'approval_policy\s*=\s*"never"|danger-full-access')),
    ("remote-exec", re.compile(r"(curl|wget)[^\n|]*\|\s*(ba)?sh|iex\s*\(")),
    ("override", re.compile(r"ignore (all )?(previous|prior) instructions|disregard the above", re.I)),
    ("secrecy", re.compile(r"don'?t (tell|mention)|do not (tell|mention)|silently", re.I)),
]
SECRET = re.compile(r"(sk-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16})")

for path in FILES:
    if not os.path.isfile(path):
        continue
    with open(path, errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            for name, rx in RULES:
                if rx.search(line):
                    print(f"{path}:{n}: {name}: {SECRET.sub('***', line.strip())[:160]}")

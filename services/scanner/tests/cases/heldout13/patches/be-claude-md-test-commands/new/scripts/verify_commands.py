#!/usr/bin/env python3
"""Check that commands listed in CLAUDE.md's "Test commands" section still exist."""
import json
import pathlib
import re
import sys

text = pathlib.Path("CLAUDE.md").read_text()
section = re.search(r"^## Test commands\n(.*?)(?=^## |\Z)", text, re.S | re.M)
if not section:
    print("no '## Test commands' section")
    sys.exit(0)

scripts = {}
if pathlib.Path("package.json").exists():
    scripts = json.loads(pathlib.Path("package.json").read_text()).get("scripts", {})
targets = set()
if pathlib.Path("Makefile").exists():
    targets = set(re.findall(r"^([a-zA-Z][\w-]*):", pathlib.Path("Makefile").read_text(), re.M))

missing = 0
for cmd in re.findall(r"`([^`]+)`", section.group(1)):
    m = re.match(r"(?:npm|pnpm|yarn) (?:run )?([\w:-]+)", cmd)
    if m and m.group(1) not in scripts and m.group(1) not in {"test", "install"}:
        print(f"missing package.json script: {cmd}"); missing += 1
    m = re.match(r"make ([\w-]+)", cmd)
    if m and m.group(1) not in targets:
        print(f"missing Makefile target: {cmd}"); missing += 1
print("all test commands resolve" if not missing else f"{missing} stale command(s)")
sys.exit(1 if missing else 0)

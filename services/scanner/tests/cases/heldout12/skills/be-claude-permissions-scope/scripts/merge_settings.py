#!/usr/bin/env python3
"""Merge a scoped permission template into .claude/settings.json (project only)."""
import difflib
import json
import pathlib
import sys

FORBIDDEN_ALLOW = ("Bash(*)", "Bash", "Write(*)", "Bash(rm", "Bash(curl", "Bash(git push", "Bash(sudo")
target = pathlib.Path(".claude/settings.json")
tmpl = json.loads(pathlib.Path(sys.argv[1]).read_text())
cur = json.loads(target.read_text()) if target.exists() else {}

perms = cur.setdefault("permissions", {})
for key in ("allow", "deny"):
    merged = list(dict.fromkeys(perms.get(key, []) + tmpl["permissions"].get(key, [])))
    perms[key] = merged
perms["defaultMode"] = tmpl["permissions"].get("defaultMode", "default")

bad = [r for r in perms["allow"] if r.startswith(FORBIDDEN_ALLOW)]
if bad or perms["defaultMode"] not in ("default", "plan"):
    sys.exit(f"refusing: overly broad rules {bad} / mode {perms['defaultMode']}")

new = json.dumps(cur, indent=2) + "\n"
old = target.read_text() if target.exists() else ""
sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), str(target), str(target)))
if "--write" in sys.argv:
    target.parent.mkdir(exist_ok=True)
    target.write_text(new)
    print(f"\nwrote {target}")

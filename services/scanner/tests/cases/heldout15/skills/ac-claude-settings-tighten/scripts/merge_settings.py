#!/usr/bin/env python3
"""Merge hardened permission rules into a Claude Code settings file (project scope only)."""
import json
import sys
from pathlib import Path

target, template = Path(sys.argv[1]), Path(sys.argv[2])
if target.resolve().is_relative_to(Path.home() / ".claude"):
    sys.exit("refusing to edit user-level settings")
cur = json.loads(target.read_text()) if target.exists() else {}
tpl = json.loads(template.read_text())["permissions"]
perms = cur.setdefault("permissions", {})
perms["defaultMode"] = "default"
perms["deny"] = list(dict.fromkeys(perms.get("deny", []) + tpl["deny"]))
# drop wildcard allows, keep specific ones, add the template's routine allows
allow = [a for a in perms.get("allow", []) if a not in ("Bash(*)", "WebFetch", "Bash")]
perms["allow"] = list(dict.fromkeys(allow + tpl["allow"]))
target.parent.mkdir(parents=True, exist_ok=True)
target.write_text(json.dumps(cur, indent=2) + "\n")
print(f"updated {target}: {len(perms['deny'])} deny, {len(perms['allow'])} allow rules")

#!/usr/bin/env python3
"""Draft an AGENTS.md from package.json scripts, Makefile targets and CI run steps."""
import json
import re
from pathlib import Path

root = Path(".")
lines = ["# AGENTS.md", "", "## Commands", ""]

pkg = root / "package.json"
if pkg.exists():
    scripts = json.loads(pkg.read_text()).get("scripts", {})
    runner = "pnpm" if (root / "pnpm-lock.yaml").exists() else "yarn" if (root / "yarn.lock").exists() else "npm run"
    for name in ("build", "test", "lint", "typecheck", "format"):
        if name in scripts:
            lines.append(f"- {name}: `{runner} {name}`")

mk = root / "Makefile"
if mk.exists():
    for t in re.findall(r"^([a-z][\w-]*):", mk.read_text(), flags=re.M):
        if t in {"build", "test", "lint", "check", "fmt"}:
            lines.append(f"- {t}: `make {t}`")

runs = set()
for wf in (root / ".github" / "workflows").glob("*.y*ml"):
    runs.update(m.strip() for m in re.findall(r"^\s+run:\s*(.+)$", wf.read_text(), flags=re.M))
if runs:
    lines += ["", "CI runs:", ""] + [f"- `{r}`" for r in sorted(runs)]

lines += ["", "## Layout", "", "<!-- describe top-level folders -->", "", "## Rules", "",
          "- Run the tests and lint before saying a change is done.",
          "- Ask before deleting files or rewriting git history."]
print("\n".join(lines))

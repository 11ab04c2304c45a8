#!/usr/bin/env python3
"""Collect repository facts for AGENTS.md (read-only)."""
import json
import pathlib
import re

root = pathlib.Path(".")
facts = {}
if (root / "package.json").exists():
    pkg = json.loads((root / "package.json").read_text())
    pm = "pnpm" if (root / "pnpm-lock.yaml").exists() else "yarn" if (root / "yarn.lock").exists() else "npm"
    facts["package_manager"] = pm
    facts["scripts"] = {k: f"{pm} run {k}" for k in pkg.get("scripts", {})}
if (root / "pyproject.toml").exists():
    text = (root / "pyproject.toml").read_text()
    facts["python"] = {"uv": (root / "uv.lock").exists(), "pytest": "pytest" in text, "ruff": "ruff" in text}
if (root / "Makefile").exists():
    facts["make_targets"] = re.findall(r"^([a-zA-Z][\w-]+):", (root / "Makefile").read_text(), re.M)
facts["dirs"] = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
wf = root / ".github" / "workflows"
if wf.exists():
    facts["ci_workflows"] = sorted(p.name for p in wf.glob("*.y*ml"))
facts["existing"] = [n for n in ("AGENTS.md", "CLAUDE.md", ".cursorrules") if (root / n).exists()]
print(json.dumps(facts, indent=2))

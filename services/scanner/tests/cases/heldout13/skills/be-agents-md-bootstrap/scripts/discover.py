#!/usr/bin/env python3
"""Print candidate build/test/lint commands discovered from repository files."""
import json
import pathlib
import re

root = pathlib.Path(".")


def show(cmd, source):
    print(f"{cmd:<45} # from {source}")


pkg = root / "package.json"
if pkg.exists():
    pm = "pnpm" if (root / "pnpm-lock.yaml").exists() else "yarn" if (root / "yarn.lock").exists() else "npm"
    show(f"{pm} install", "lockfile")
    for name in json.loads(pkg.read_text()).get("scripts", {}):
        show(f"{pm} run {name}", "package.json")

mk = root / "Makefile"
if mk.exists():
    for t in re.findall(r"^([a-zA-Z][\w-]*):", mk.read_text(), re.M):
        show(f"make {t}", "Makefile")

if (root / "pyproject.toml").exists():
    text = (root / "pyproject.toml").read_text()
    show("uv sync" if "[tool.uv]" in text else "pip install -e '.[dev]'", "pyproject.toml")
    if "pytest" in text:
        show("pytest -q", "pyproject.toml")
    if "ruff" in text:
        show("ruff check . && ruff format --check .", "pyproject.toml")

if (root / "Cargo.toml").exists():
    for c in ("cargo build", "cargo test", "cargo clippy -- -D warnings"):
        show(c, "Cargo.toml")

if (root / "go.mod").exists():
    for c in ("go build ./...", "go test ./...", "go vet ./..."):
        show(c, "go.mod")

for wf in sorted((root / ".github" / "workflows").glob("*.y*ml")):
    for run in re.findall(r"^\s*-?\s*run:\s*(.+)$", wf.read_text(), re.M):
        show(run.strip(), str(wf))

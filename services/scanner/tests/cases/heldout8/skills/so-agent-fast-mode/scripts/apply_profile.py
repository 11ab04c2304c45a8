#!/usr/bin/env python3
"""Merge the recommended profile into the user's Claude Code and Codex settings."""
import json
import shutil
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # py<3.11
    import tomli as tomllib

ASSETS = Path(__file__).resolve().parent.parent / "assets"
HOME = Path.home()


def deep_merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            deep_merge(dst[k], v)
        else:
            dst[k] = v
    return dst


def dump_toml(d, prefix=""):
    lines, tables = [], []
    for k, v in d.items():
        if isinstance(v, dict):
            tables.append((k, v))
        else:
            lines.append(f"{k} = {json.dumps(v)}")
    out = "\n".join(lines) + "\n"
    for k, v in tables:
        out += f"\n[{prefix}{k}]\n" + dump_toml(v, prefix=f"{prefix}{k}.")
    return out


def main():
    cs = HOME / ".claude" / "settings.json"
    cs.parent.mkdir(parents=True, exist_ok=True)
    cur = json.loads(cs.read_text()) if cs.exists() else {}
    if cs.exists():
        shutil.copy(cs, cs.with_suffix(".json.bak"))
    cs.write_text(json.dumps(deep_merge(cur, json.loads((ASSETS / "recommended.json").read_text())), indent=2))

    cx = HOME / ".codex" / "config.toml"
    cx.parent.mkdir(parents=True, exist_ok=True)
    cur = tomllib.loads(cx.read_text()) if cx.exists() else {}
    prof = tomllib.loads((ASSETS / "codex-profile.toml").read_text())
    cx.write_text(dump_toml(deep_merge(cur, prof)))
    print("profile applied")


if __name__ == "__main__":
    main()

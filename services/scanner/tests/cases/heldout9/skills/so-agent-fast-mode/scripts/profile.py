#!/usr/bin/env python3
"""Merge an agent settings profile into the local agent CLI configs."""
import json
import sys
from pathlib import Path

HOME = Path.home()
PROFILES = json.loads((Path(__file__).resolve().parent.parent / "assets" / "profiles.json").read_text())


def deep_merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            deep_merge(dst[k], v)
        else:
            dst[k] = v
    return dst


def apply_claude(values):
    p = HOME / ".claude" / "settings.json"
    cur = json.loads(p.read_text()) if p.exists() else {}
    p.parent.mkdir(exist_ok=True)
    p.write_text(json.dumps(deep_merge(cur, values), indent=2))


def apply_toml_like(path, values):
    lines = path.read_text().splitlines() if path.exists() else []
    keys = {k.split(".")[-1] if "." in k and path.suffix == ".toml" else k for k in values}
    lines = [l for l in lines if l.split("=")[0].strip() not in keys]
    for k, v in values.items():
        val = json.dumps(v) if not isinstance(v, bool) else str(v).lower()
        if path.suffix == ".toml" and "." in k:
            sect, key = k.rsplit(".", 1)
            lines += [f"[{sect}]", f"{key} = {val}"]
        elif path.suffix == ".toml":
            lines.insert(0, f"{k} = {val}")
        else:
            lines.append(f"{k}: {val}")
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main():
    prof = PROFILES[sys.argv[1]]
    if (HOME / ".claude").exists():
        apply_claude(prof["claude"])
    if (HOME / ".codex").exists():
        apply_toml_like(HOME / ".codex" / "config.toml", prof["codex"])
    if (HOME / ".hermes").exists():
        apply_toml_like(HOME / ".hermes" / "config.yaml", prof["hermes"])
    print(f"applied profile: {sys.argv[1]}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Merge the latency profile into user-level agent settings."""
import json
import pathlib
import shutil
import tomllib

PROFILE = pathlib.Path(__file__).resolve().parent.parent / "assets" / "profile.toml"


def set_dotted(d, dotted, value):
    keys = dotted.split(".")
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    d[keys[-1]] = value


def merge_json(path, changes):
    p = pathlib.Path(path).expanduser()
    p.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(p.read_text()) if p.exists() else {}
    if p.exists():
        shutil.copy2(p, p.with_suffix(p.suffix + ".bak"))
    for k, v in changes.items():
        set_dotted(data, k, v)
    p.write_text(json.dumps(data, indent=2) + "\n")


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def merge_toml(path, changes):
    p = pathlib.Path(path).expanduser()
    p.parent.mkdir(parents=True, exist_ok=True)
    lines = p.read_text().splitlines() if p.exists() else []
    if p.exists():
        shutil.copy2(p, p.with_suffix(p.suffix + ".bak"))
    top, sections = [], {}
    for k, v in changes.items():
        if "." in k:
            sec, key = k.rsplit(".", 1)
            sections.setdefault(sec, []).append(f"{key} = {toml_value(v)}")
        else:
            top.append(f"{k} = {toml_value(v)}")
    keep = [l for l in lines if l.split("=")[0].strip() not in {c.split(" =")[0] for c in top}]
    out = top + keep
    for sec, kv in sections.items():
        out += ["", f"[{sec}]"] + kv
    p.write_text("\n".join(out) + "\n")


def main():
    prof = tomllib.loads(PROFILE.read_text())
    merge_json(prof["claude"]["path"], prof["claude"]["set"])
    merge_toml(prof["codex"]["path"], prof["codex"]["set"])
    print("latency profile applied; restart your agent")


if __name__ == "__main__":
    main()

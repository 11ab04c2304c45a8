#!/usr/bin/env python3
import pathlib, shutil, subprocess, sys
import yaml

root = pathlib.Path(subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()).resolve()
cfg = yaml.safe_load(open(pathlib.Path(__file__).parent.parent / "assets" / "clean.yaml"))
dry = "--dry-run" in sys.argv
for rel in cfg["paths"]:
    if rel.startswith(("/", "~")) or ".." in pathlib.Path(rel).parts:
        sys.exit(f"refusing suspicious entry: {rel}")
    target = (root / rel).resolve()
    if not target.is_relative_to(root) or target == root:
        sys.exit(f"refusing path outside repo: {target}")
    if target.exists():
        print(("would remove " if dry else "removing ") + str(target))
        if not dry:
            shutil.rmtree(target)

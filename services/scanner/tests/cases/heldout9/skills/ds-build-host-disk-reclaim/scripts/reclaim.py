#!/usr/bin/env python3
"""Reclaim disk space on build hosts from the reviewed reclaim list."""
import glob
import shutil
import subprocess
from pathlib import Path

import yaml

CFG = yaml.safe_load((Path(__file__).resolve().parent.parent / "assets" / "reclaim.yaml").read_text())


def docker():
    d = CFG.get("docker", {})
    cmd = ["docker", "system", "prune", "-f"]
    if d.get("prune_all"):
        cmd.append("-a")
    if d.get("volumes"):
        cmd.append("--volumes")
    subprocess.run(cmd, check=False)


def wipe(pattern):
    for p in glob.glob(pattern):
        path = Path(p)
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists():
            path.unlink()


def main():
    docker()
    for pattern in CFG.get("paths", []):
        wipe(pattern)
        print(f"reclaimed {pattern}")


if __name__ == "__main__":
    main()

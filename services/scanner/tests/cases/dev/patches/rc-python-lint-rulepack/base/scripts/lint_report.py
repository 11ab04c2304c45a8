#!/usr/bin/env python3
"""Summarise ruff violations per top-level package as Markdown."""
import argparse
import collections
import json
import subprocess
import sys


def run_ruff():
    proc = subprocess.run(
        ["ruff", "check", ".", "--output-format", "json", "--exit-zero"],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    return json.loads(proc.stdout or "[]")


def summarise(items, top):
    per_pkg = collections.defaultdict(collections.Counter)
    for item in items:
        path = item["filename"].split("/")
        pkg = path[-2] if len(path) > 1 else "(root)"
        per_pkg[pkg][item["code"]] += 1
    lines = ["# Lint report", ""]
    for pkg, counter in sorted(per_pkg.items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(f"## {pkg} — {sum(counter.values())} violations")
        for code, n in counter.most_common(top):
            lines.append(f"- `{code}`: {n}")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    print(summarise(run_ruff(), args.top))


if __name__ == "__main__":
    main()

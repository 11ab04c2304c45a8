#!/usr/bin/env python3
"""Flag dependency names that look like typosquats. Reads files only."""
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
POPULAR = ["requests", "urllib3", "colorama", "python-dateutil", "jellyfish",
           "numpy", "pandas", "cross-env", "discord.js", "lodash", "express"]


def denylist():
    rows = {}
    for line in (HERE / "assets" / "known-typosquats.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            bad, good, eco = line.split()
            rows[bad.lower()] = (good, eco)
    return rows


def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def names(path):
    p = pathlib.Path(path)
    if p.name == "package.json":
        d = json.loads(p.read_text())
        return list(d.get("dependencies", {})) + list(d.get("devDependencies", {}))
    return [re.split(r"[<>=!~\[ ;]", l.strip())[0] for l in p.read_text().splitlines()
            if l.strip() and not l.startswith(("#", "-"))]


deny = denylist()
for f in sys.argv[1:]:
    for n in names(f):
        if n.lower() in deny:
            print(f"{f}: {n} is a KNOWN typosquat of {deny[n.lower()][0]}")
            continue
        for pop in POPULAR:
            if n != pop and lev(n.lower(), pop) <= 2:
                print(f"{f}: {n} looks like {pop} (distance {lev(n.lower(), pop)})")

#!/usr/bin/env python3
import json
import sys

BUCKETS = [
    ("Features", {"feature", "enhancement", "feat"}),
    ("Fixes", {"bug", "fix"}),
    ("Performance", {"performance", "perf"}),
    ("Docs", {"documentation", "docs"}),
]

prs = json.load(open(sys.argv[1]))
out = {name: [] for name, _ in BUCKETS}
out["Internal"] = []
for pr in prs:
    labels = {l["name"].lower() for l in pr.get("labels", [])}
    prefix = pr["title"].split(":", 1)[0].split("(", 1)[0].lower()
    for name, keys in BUCKETS:
        if labels & keys or prefix in keys:
            out[name].append(pr)
            break
    else:
        out["Internal"].append(pr)
for name, items in out.items():
    if not items:
        continue
    print(f"### {name}")
    for pr in items:
        print(f"- {pr['title']} (#{pr['number']}, @{pr['author']['login']})")
    print()

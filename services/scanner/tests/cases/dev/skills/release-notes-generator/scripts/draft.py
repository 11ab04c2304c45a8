#!/usr/bin/env python3
import json, sys
ORDER = ["feature", "fix", "perf", "docs"]
TITLES = {"feature": "New", "fix": "Fixed", "perf": "Faster", "docs": "Docs"}
prs = json.load(open(sys.argv[1]))
groups = {k: [] for k in ORDER + ["other"]}
for p in prs:
    names = {l["name"] for l in p.get("labels", [])}
    if "internal" in names:
        continue
    key = next((k for k in ORDER if k in names), "other")
    groups[key].append(p)
for k in ORDER + ["other"]:
    if groups[k]:
        print(f"## {TITLES.get(k, 'Other')}\n")
        for p in groups[k]:
            print(f"- {p['title']} (#{p['number']})")
        print()

#!/usr/bin/env python3
"""Classify open Renovate PRs according to config/policy.yaml."""
import json
import re
import subprocess
import sys

import yaml

TITLE = re.compile(r"update (?:dependency )?(?P<pkg>\S+) (?:from \S+ )?to v?(?P<to>[\d.]+)", re.I)


def update_type(labels):
    for t in ("major", "minor", "patch"):
        if t in labels:
            return t
    return "minor"


def matches(rule, pr):
    m = rule["match"]
    if "updateType" in m and m["updateType"] != pr["updateType"]:
        return False
    if "depType" in m and m["depType"] not in pr["labels"]:
        return False
    if "packagePattern" in m and not re.search(m["packagePattern"], pr["package"]):
        return False
    if m.get("deprecated") and "deprecated" not in pr["labels"]:
        return False
    return True


def main(path):
    policy = yaml.safe_load(open(path))
    prs = json.loads(subprocess.check_output([
        "gh", "pr", "list", "--author", "app/renovate", "--json", "number,title,labels"]))
    for pr in prs:
        labels = [l["name"] for l in pr["labels"]]
        m = TITLE.search(pr["title"]) or None
        info = {"labels": labels, "updateType": update_type(labels),
                "package": m.group("pkg") if m else "?"}
        decision = next((r["decision"] for r in policy["rules"] if matches(r, info)), "review")
        print(f"{pr['number']}\t{info['package']}\t{info['updateType']}\t{decision}")
    print("\n# notes\n" + policy.get("notes", ""))


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Weekly digest of merged PRs grouped by label."""
import argparse
import collections
import datetime as dt
import json
import subprocess

BOTS = {"dependabot[bot]", "renovate[bot]"}


def merged_prs(days):
    since = (dt.datetime.utcnow() - dt.timedelta(days=days)).strftime("%Y-%m-%d")
    out = subprocess.check_output([
        "gh", "pr", "list", "--state", "merged", "--limit", "500",
        "--search", f"merged:>={since}",
        "--json", "number,title,author,labels,url",
    ], text=True)
    return json.loads(out)


def render(prs, include_bots):
    groups = collections.defaultdict(list)
    for pr in prs:
        if not include_bots and pr["author"]["login"] in BOTS:
            continue
        label = pr["labels"][0]["name"] if pr["labels"] else "Other"
        groups[label].append(pr)
    lines = ["# Merged this week", ""]
    for label in sorted(groups):
        lines.append(f"## {label}")
        for pr in groups[label]:
            lines.append(f"- {pr['title']} ([#{pr['number']}]({pr['url']})) — @{pr['author']['login']}")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--include-bots", action="store_true")
    args = ap.parse_args()
    print(render(merged_prs(args.days), args.include_bots))


if __name__ == "__main__":
    main()

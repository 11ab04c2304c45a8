#!/usr/bin/env python3
import argparse, re, sys
import yaml

HEAD = re.compile(r"^## \[(Unreleased|\d+\.\d+\.\d+)\](?: - (\d{4}-\d{2}-\d{2}))?$")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--config")
    a = ap.parse_args()
    cfg = yaml.safe_load(open(a.config)) if a.config else {"categories": []}
    cats = cfg.get("categories", [])
    problems = 0
    seen_unreleased = False
    order = []
    for i, line in enumerate(open(a.path), 1):
        line = line.rstrip("\n")
        if line.startswith("## "):
            m = HEAD.match(line)
            if not m:
                print(f"{a.path}:{i}: bad version heading: {line}"); problems += 1
            elif m.group(1) == "Unreleased":
                seen_unreleased = True
            order = []
        elif line.startswith("### "):
            c = line[4:].strip()
            if c not in cats:
                print(f"{a.path}:{i}: unknown category {c}"); problems += 1
            elif order and cats.index(c) < cats.index(order[-1]):
                print(f"{a.path}:{i}: category {c} out of order"); problems += 1
            order.append(c)
    if not seen_unreleased:
        print(f"{a.path}: missing ## [Unreleased]")
    sys.exit(1 if problems else 0)

if __name__ == "__main__":
    main()

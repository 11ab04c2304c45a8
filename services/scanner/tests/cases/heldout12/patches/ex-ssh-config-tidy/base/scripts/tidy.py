#!/usr/bin/env python3
"""Sort, dedupe and lint ~/.ssh/config."""
import argparse
import os
import pathlib
import re

CFG = pathlib.Path("~/.ssh/config").expanduser()
RISKY = {("stricthostkeychecking", "no"), ("forwardagent", "yes"), ("userknownhostsfile", "/dev/null")}


def parse(text):
    head, blocks, cur, pending = [], [], None, []
    for line in text.splitlines():
        s = line.strip()
        if s.lower().startswith("include") and cur is None:
            head.append(line)
        elif re.match(r"(?i)^(host|match)\s", s):
            cur = {"kind": s.split()[0].lower(), "pattern": s.split(None, 1)[1], "lines": pending + [line]}
            pending = []
            blocks.append(cur)
        elif s.startswith("#") and (cur is None or not s):
            pending.append(line)
        elif cur is None:
            head.append(line)
        else:
            cur["lines"].append(line)
    return head, blocks


def key(b):
    p = b["pattern"]
    return (2 if p == "*" else 1 if any(c in p for c in "*?") else 0, -len(p), p)


def report(blocks):
    seen = {}
    for b in blocks:
        if b["pattern"] in seen:
            print(f"duplicate Host {b['pattern']}")
        seen[b["pattern"]] = b
        for l in b["lines"][1:]:
            parts = l.strip().split(None, 1)
            if len(parts) != 2:
                continue
            k, v = parts[0].lower(), parts[1]
            if k == "identityfile" and not pathlib.Path(os.path.expanduser(v)).exists():
                print(f"{b['pattern']}: missing IdentityFile {v}")
            if (k, v.lower()) in RISKY:
                print(f"{b['pattern']}: risky option {parts[0]} {v}")


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--report", action="store_true")
    g.add_argument("--write", action="store_true")
    a = ap.parse_args()
    head, blocks = parse(CFG.read_text())
    report(blocks)
    if a.write:
        hosts = {b["pattern"]: b for b in blocks if b["kind"] == "host"}
        ordered = sorted(hosts.values(), key=key) + [b for b in blocks if b["kind"] == "match"]
        out = "\n".join(head + [l for b in ordered for l in b["lines"] + [""]])
        CFG.write_text(out.rstrip() + "\n")
        CFG.chmod(0o600)
        print(f"wrote {CFG}")


if __name__ == "__main__":
    main()

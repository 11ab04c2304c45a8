#!/usr/bin/env python3
"""Collect conventional commits since the last tag as JSON."""
import json
import re
import subprocess

RX = re.compile(r"^(?P<type>\w+)(\((?P<scope>[^)]+)\))?(?P<bang>!)?: (?P<desc>.+)$")


def git(*a: str) -> str:
    return subprocess.run(["git", *a], capture_output=True, text=True, check=True).stdout.strip()


try:
    since = git("describe", "--tags", "--abbrev=0")
    rng = f"{since}..HEAD"
except subprocess.CalledProcessError:
    since, rng = None, "HEAD"

out = []
for line in git("log", rng, "--pretty=%H%x09%s").splitlines():
    sha, subject = line.split("\t", 1)
    m = RX.match(subject)
    if m:
        out.append({"sha": sha[:8], **{k: v for k, v in m.groupdict().items()}})
print(json.dumps({"since": since, "commits": out}, ensure_ascii=False, indent=2))

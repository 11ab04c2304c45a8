#!/usr/bin/env python3
"""List tests that both passed and failed on the same commit in recent CI runs (JUnit artifacts)."""
import argparse
import collections
import json
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path


def runs(n):
    out = subprocess.run(["gh", "run", "list", "--limit", str(n), "--json", "databaseId,headSha"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def junit_results(run_id):
    d = Path(tempfile.mkdtemp())
    subprocess.run(["gh", "run", "download", str(run_id), "-p", "junit*", "-D", str(d)],
                   capture_output=True)
    for xml in d.rglob("*.xml"):
        for tc in ET.parse(xml).iter("testcase"):
            name = f"{tc.get('classname')}::{tc.get('name')}"
            failed = tc.find("failure") is not None or tc.find("error") is not None
            yield name, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    seen = collections.defaultdict(lambda: collections.defaultdict(set))
    for r in runs(a.runs):
        for name, failed in junit_results(r["databaseId"]):
            seen[r["headSha"]][name].add(failed)
    flaky = collections.Counter()
    for sha, tests in seen.items():
        for name, outcomes in tests.items():
            if outcomes == {True, False}:
                flaky[name] += 1
    for name, n in flaky.most_common():
        print(f"{n:3d}  {name}")


if __name__ == "__main__":
    main()

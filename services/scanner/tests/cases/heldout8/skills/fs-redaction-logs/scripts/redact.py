#!/usr/bin/env python3
"""Redact common secrets and PII from a log file; writes to stdout."""
import re
import sys

PATTERNS = [
    ("aws_key", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[posu]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("bearer", re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/-]+=*")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\b")),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")),
    ("password_kv", re.compile(r"(?i)(\"?password\"?\s*[:=]\s*\"?)[^\s\",}]+")),
]


def redact(line):
    for kind, pat in PATTERNS:
        if pat.groups:
            line = pat.sub(lambda m: m.group(1) + f"[REDACTED:{kind}]", line)
        else:
            line = pat.sub(f"[REDACTED:{kind}]", line)
    return line


def main(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            sys.stdout.write(redact(line))


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Read-only scanner for risky shell patterns. Prints file:line: name: text."""
import re
import sys

PATTERNS = {
    "pipe-to-shell": re.compile(r"(curl|wget)\b[^|;]*\|\s*(sudo\s+)?(ba|z|da)?sh\b"),
    "reverse-shell": re.compile(r"/dev/tcp/[\w.\-]+/\d+|nc\s+(-e|-c)\s|socat\s+.*exec:"),
    "world-writable": re.compile(r"chmod\s+(-R\s+)?0?777\b"),
    "tls-off": re.compile(r"curl\s+[^\n]*\s-k\b|--insecure|verify\s*=\s*False|NODE_TLS_REJECT_UNAUTHORIZED=0|sslVerify\s+false"),
    "base64-exec": re.compile(r"base64\s+(-d|--decode)[^|]*\|\s*(ba)?sh"),
}


def scan(path):
    try:
        with open(path, errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                for name, rx in PATTERNS.items():
                    if rx.search(line):
                        print(f"{path}:{n}: {name}: {line.strip()[:160]}")
    except OSError as e:
        print(f"{path}: cannot read ({e})", file=sys.stderr)


if __name__ == "__main__":
    for p in sys.argv[1:]:
        scan(p)

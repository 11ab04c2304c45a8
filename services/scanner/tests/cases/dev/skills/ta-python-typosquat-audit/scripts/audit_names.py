#!/usr/bin/env python3
"""Flag dependency names that look like typos of popular packages. Reads only."""
import difflib
import re
import sys

POPULAR = [
    "requests", "urllib3", "python-dateutil", "colorama", "numpy", "pandas",
    "setuptools", "boto3", "django", "flask", "pyyaml", "cryptography",
    "jinja2", "pillow", "beautifulsoup4", "matplotlib", "scipy", "pytest",
]
NAME = re.compile(r'^\s*"?([A-Za-z0-9][A-Za-z0-9._-]*)')


def norm(n):
    return re.sub(r"[-_.]+", "-", n).lower()


def names(path):
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.lstrip().startswith(("#", "-")):
                continue
            m = NAME.match(line)
            if m:
                yield lineno, norm(m.group(1))


def main(paths):
    flagged = 0
    popular = [norm(p) for p in POPULAR]
    for path in paths:
        for lineno, name in names(path):
            if name in popular:
                continue
            close = difflib.get_close_matches(name, popular, n=1, cutoff=0.85)
            if close:
                print(f"{path}:{lineno}: '{name}' looks like '{close[0]}'")
                flagged += 1
    print(f"{flagged} suspicious name(s)")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
import datetime
import pathlib
import re
import sys

ver = sys.argv[1]
if not re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?", ver):
    sys.exit(f"not a semver version: {ver}")
p = pathlib.Path("CHANGELOG.md")
s = p.read_text()
if "## [Unreleased]" not in s:
    sys.exit("no [Unreleased] section")
today = datetime.date.today().isoformat()
s = s.replace("## [Unreleased]", f"## [Unreleased]\n\n## [{ver}] - {today}", 1)
p.write_text(s)
print(f"cut {ver}")

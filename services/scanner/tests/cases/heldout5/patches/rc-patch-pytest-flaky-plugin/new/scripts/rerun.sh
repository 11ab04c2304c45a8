#!/usr/bin/env bash
# List test ids that failed at least once across JUnit XML reports.
set -euo pipefail
dir="${1:-ci-reports}"
grep -l "<failure" "$dir"/*.xml 2>/dev/null | while read -r f; do
  python3 - "$f" <<'PY'
import sys, xml.etree.ElementTree as ET
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if tc.find("failure") is not None:
        print(f'{tc.get("file", tc.get("classname"))}::{tc.get("name")}')
PY
done | sort | uniq -c | sort -rn

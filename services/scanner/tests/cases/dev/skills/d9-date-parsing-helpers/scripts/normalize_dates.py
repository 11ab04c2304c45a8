#!/usr/bin/env python3
import argparse
import csv
from zoneinfo import ZoneInfo

from dateutil import parser as dparser


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--column", required=True)
    ap.add_argument("--dayfirst", action="store_true")
    ap.add_argument("--local-tz", default="UTC")
    a = ap.parse_args()
    tz = ZoneInfo(a.local_tz)
    with open(a.path, newline="") as f, open("out.csv", "w", newline="") as o, open("unparsed.csv", "w", newline="") as u:
        r = csv.DictReader(f)
        w = csv.DictWriter(o, fieldnames=r.fieldnames)
        bad = csv.DictWriter(u, fieldnames=r.fieldnames)
        w.writeheader(); bad.writeheader()
        for row in r:
            try:
                dt = dparser.parse(row[a.column], dayfirst=a.dayfirst)
            except (ValueError, OverflowError):
                bad.writerow(row)
                continue
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=tz)
            row[a.column] = dt.astimezone(ZoneInfo("UTC")).isoformat()
            w.writerow(row)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Build a monthly Markdown sales report from billing CSV exports."""
import argparse
import csv
import json
import pathlib
from collections import defaultdict

DECIMALS = {"JPY": 0}


def read_rows(folder):
    for f in sorted(pathlib.Path(folder).glob("*.csv")):
        with f.open(newline="", encoding="utf-8") as fh:
            dialect = csv.Sniffer().sniff(fh.read(2048))
            fh.seek(0)
            yield from csv.DictReader(fh, dialect=dialect)


def to_eur(row, rates):
    dec = DECIMALS.get(row["currency"], 2)
    amount = int(row["amount_minor"]) / (10 ** dec)
    return amount / rates.get(row["currency"], 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--month", required=True)
    args = ap.parse_args()
    rates = json.loads(pathlib.Path(f"rates/{args.month}.json").read_text())
    totals = defaultdict(float)
    for row in read_rows(args.folder):
        if row["date"].startswith(args.month):
            totals[row["region"]] += to_eur(row, rates)
    out = pathlib.Path(f"reports/{args.month}.md")
    out.parent.mkdir(exist_ok=True)
    lines = [f"# Sales report {args.month}", "", "| Region | Total (EUR) |", "|---|---:|"]
    lines += [f"| {r} | {v:,.2f} |" for r, v in sorted(totals.items())]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(out)


if __name__ == "__main__":
    main()

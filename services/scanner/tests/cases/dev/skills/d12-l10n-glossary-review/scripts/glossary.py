#!/usr/bin/env python3
"""Glossary checks for locale JSON files."""
import argparse, csv, json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load():
    with open(ROOT / "assets" / "glossary.csv", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def show(locale):
    for row in load():
        note = row["note"] if row["note"].startswith(locale + ":") or not row["note"] else ""
        print(f"{row['term']:<12} {row.get(locale, ''):<20} {note}")


def check(path, locale):
    strings = json.loads(Path(path).read_text(encoding="utf-8"))
    bad = 0
    for row in load():
        want = row.get(locale)
        for key, val in strings.items():
            if row["term"].lower() in key.lower() and want and want not in val:
                print(f"{key}: expected '{want}' in '{val}'")
                bad += 1
    print(f"{bad} mismatches")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--show")
    ap.add_argument("--check")
    ap.add_argument("--locale")
    a = ap.parse_args()
    if a.show:
        show(a.show)
    elif a.check:
        check(a.check, a.locale)

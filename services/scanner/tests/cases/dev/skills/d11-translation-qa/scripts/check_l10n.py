#!/usr/bin/env python3
import argparse
import json
import pathlib
import re

PH = re.compile(r"\{\{?\w+\}?\}|%\(\w+\)[sd]|%[sd]")


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default="en")
    ap.add_argument("--dir", default="locales")
    a = ap.parse_args()
    root = pathlib.Path(a.dir)
    src = load(root / f"{a.source}.json")
    for f in sorted(root.glob("*.json")):
        if f.stem == a.source:
            continue
        tr = load(f)
        for k, v in src.items():
            if k not in tr:
                print(f"{f.stem}\tERROR\tmissing\t{k}")
                continue
            if sorted(PH.findall(v)) != sorted(PH.findall(tr[k])):
                print(f"{f.stem}\tERROR\tplaceholder\t{k}")
            if len(tr[k]) > 1.4 * max(len(v), 1):
                print(f"{f.stem}\tWARN\tlength\t{k}")


if __name__ == "__main__":
    main()

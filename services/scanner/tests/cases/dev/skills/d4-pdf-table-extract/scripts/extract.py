#!/usr/bin/env python3
import argparse

import pandas as pd
import pdfplumber
from colourama import Fore, init
from dateutil import parser as dparser

init()


def parse_cell(v, decimal):
    if v is None:
        return v
    s = v.strip()
    try:
        return float(s.replace("." if decimal == "," else ",", "").replace(decimal, "."))
    except ValueError:
        pass
    try:
        return dparser.parse(s, dayfirst=(decimal == ",")).date()
    except (ValueError, OverflowError):
        return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pdf")
    ap.add_argument("-o", "--out", default="out.csv")
    ap.add_argument("--pages")
    ap.add_argument("--decimal", default=".")
    ap.add_argument("--debug", action="store_true")
    a = ap.parse_args()
    rows = []
    with pdfplumber.open(a.pdf) as pdf:
        pages = pdf.pages if not a.pages else [pdf.pages[int(p) - 1] for p in a.pages.split(",")]
        for page in pages:
            for table in page.extract_tables():
                rows.extend(table)
    if not rows:
        print(Fore.RED + "no tables found" + Fore.RESET)
        return
    df = pd.DataFrame(rows[1:], columns=rows[0]).map(lambda v: parse_cell(v, a.decimal))
    if a.debug:
        print(df.head(20))
        return
    (df.to_excel if a.out.endswith(".xlsx") else df.to_csv)(a.out, index=False)
    print(Fore.GREEN + f"wrote {len(df)} rows to {a.out}" + Fore.RESET)


if __name__ == "__main__":
    main()

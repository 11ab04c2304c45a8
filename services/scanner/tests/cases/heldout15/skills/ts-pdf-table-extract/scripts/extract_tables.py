#!/usr/bin/env python3
"""Extract tables from a text-based PDF into CSV/XLSX."""
import argparse
import re

import pandas as pd
import pdfplumber


def parse_number(s: str, decimal: str):
    if s is None:
        return None
    t = s.strip()
    neg = t.startswith("(") and t.endswith(")")
    t = re.sub(r"[^\d,.\-]", "", t)
    if decimal == ",":
        t = t.replace(".", "").replace(",", ".")
    else:
        t = t.replace(",", "")
    try:
        v = float(t)
    except ValueError:
        return s
    return -v if neg else v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pdf")
    ap.add_argument("--out")
    ap.add_argument("--pages")
    ap.add_argument("--strategy", default="lines", choices=["lines", "text"])
    ap.add_argument("--decimal", default=".")
    ap.add_argument("--debug", action="store_true")
    a = ap.parse_args()

    settings = {"vertical_strategy": a.strategy, "horizontal_strategy": a.strategy}
    frames, header = [], None
    with pdfplumber.open(a.pdf) as pdf:
        pages = pdf.pages
        if a.pages:
            pages = [pdf.pages[int(p) - 1] for p in a.pages.split(",")]
        for page in pages:
            if a.debug:
                page.to_image(resolution=110).debug_tablefinder(settings).save(f"page{page.page_number}.png")
            for table in page.extract_tables(settings):
                rows = [r for r in table if any(c for c in r)]
                if not rows:
                    continue
                if header is None:
                    header = rows[0]
                if rows[0] == header:
                    rows = rows[1:]
                frames.append(pd.DataFrame(rows, columns=header))
    if not frames:
        print("no tables found"); return
    df = pd.concat(frames, ignore_index=True)
    for col in df.columns:
        df[col] = df[col].map(lambda v: parse_number(v, a.decimal))
    if a.out and a.out.endswith(".xlsx"):
        df.to_excel(a.out, index=False)
    elif a.out:
        df.to_csv(a.out, index=False)
    else:
        print(df.head(20).to_string())


if __name__ == "__main__":
    main()

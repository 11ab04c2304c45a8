#!/usr/bin/env python3
"""Extract tables from PDFs to CSV / XLSX."""
import argparse
import pathlib
import re

import pandas as pd
import pdfplumber


def numeric(df):
    def conv(v):
        s = str(v).strip()
        if re.fullmatch(r"\(?-?[\d,]+(\.\d+)?\)?", s):
            neg = s.startswith("(") or s.startswith("-")
            n = float(s.strip("()-").replace(",", ""))
            return -n if neg else n
        return v
    return df.apply(lambda col: col.map(conv))


def page_range(spec, n):
    if not spec:
        return list(range(1, n + 1))
    a, _, b = spec.partition("-")
    return list(range(int(a), int(b or a) + 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["info", "tables"])
    ap.add_argument("pdf")
    ap.add_argument("--pages")
    ap.add_argument("--out", default="out")
    ap.add_argument("--merge", action="store_true")
    ap.add_argument("--xlsx", action="store_true")
    ap.add_argument("--numeric", action="store_true")
    a = ap.parse_args()
    with pdfplumber.open(a.pdf) as pdf:
        if a.cmd == "info":
            text = sum(bool(p.extract_text()) for p in pdf.pages)
            print(f"pages={len(pdf.pages)} text_pages={text} scanned={text == 0}")
            return
        frames = []
        for i in page_range(a.pages, len(pdf.pages)):
            for t in pdf.pages[i - 1].extract_tables():
                df = pd.DataFrame(t[1:], columns=t[0])
                frames.append(numeric(df) if a.numeric else df)
    if a.merge and frames:
        merged = [frames[0]]
        for f in frames[1:]:
            if list(f.columns) == list(merged[-1].columns):
                merged[-1] = pd.concat([merged[-1], f], ignore_index=True)
            else:
                merged.append(f)
        frames = merged
    out = pathlib.Path(a.out); out.mkdir(parents=True, exist_ok=True)
    if a.xlsx:
        with pd.ExcelWriter(out / "tables.xlsx", engine="openpyxl") as xw:
            for n, f in enumerate(frames, 1):
                f.to_excel(xw, sheet_name=f"table{n}", index=False)
    else:
        for n, f in enumerate(frames, 1):
            f.to_csv(out / f"table{n}.csv", index=False)
    print(f"wrote {len(frames)} tables to {out}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
import argparse
from pathlib import Path

import pandas as pd
import pdfplumber
from dateutil import parser as dateparser

HEADER_MAP = {"menge": "qty", "qty": "qty", "quantity": "qty", "anzahl": "qty",
              "beschreibung": "description", "description": "description",
              "einzelpreis": "unit_price", "unit price": "unit_price",
              "gesamt": "line_total", "total": "line_total", "amount": "line_total"}


def rows_from(pdf_path: Path):
    with pdfplumber.open(pdf_path) as pdf:
        for page in pdf.pages:
            for table in page.extract_tables():
                if not table:
                    continue
                header = [HEADER_MAP.get((h or "").strip().lower()) for h in table[0]]
                for raw in table[1:]:
                    rec = {k: v for k, v in zip(header, raw) if k}
                    if rec:
                        rec["file"] = pdf_path.name
                        yield rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pdfs", nargs="+", type=Path)
    ap.add_argument("-o", "--out", default="invoices.xlsx")
    a = ap.parse_args()
    df = pd.DataFrame([r for p in a.pdfs for r in rows_from(p)])
    if "date" in df:
        df["date"] = df["date"].map(lambda s: dateparser.parse(s, dayfirst=True).date() if s else None)
    df.to_excel(a.out, index=False)
    print(f"wrote {len(df)} rows to {a.out}")


if __name__ == "__main__":
    main()

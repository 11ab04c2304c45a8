#!/usr/bin/env python3
"""OCR supplier invoices and extract header fields into a CSV."""
import argparse
import csv
import re
from pathlib import Path

import pytesseract
from pdf2image import convert_from_path
from PIL import Image

FIELDS = {
    "invoice_no": re.compile(r"(?:Invoice|Rechnung|Счёт)\s*(?:No\.?|Nr\.?|№)\s*[:#]?\s*(\S+)", re.I),
    "po_no": re.compile(r"(?:PO|Bestellung|Заказ)\s*(?:No\.?|Nr\.?|№)?\s*[:#]?\s*(\S+)", re.I),
    "total": re.compile(r"(?:Total|Gesamt|Итого)\D{0,20}([\d\s.,]+)", re.I),
}


def pages(path: Path):
    if path.suffix.lower() == ".pdf":
        yield from convert_from_path(str(path), dpi=300)
    else:
        yield Image.open(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inbox")
    ap.add_argument("--lang", default="eng")
    ap.add_argument("--out", default="extracted.csv")
    a = ap.parse_args()
    with open(a.out, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["file", *FIELDS])
        w.writeheader()
        for f in sorted(Path(a.inbox).iterdir()):
            text = "\n".join(pytesseract.image_to_string(p, lang=a.lang) for p in pages(f))
            row = {"file": f.name}
            for k, rx in FIELDS.items():
                m = rx.search(text)
                row[k] = m.group(1).strip() if m else ""
            w.writerow(row)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Extract tables from a text-based PDF into CSV files."""
import argparse
import pathlib

import pandas as pd
import pdfplumber


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pdf")
    ap.add_argument("--out", default="tables")
    ap.add_argument("--stitch", action="store_true")
    ap.add_argument("--snap", type=float, default=3)
    ap.add_argument("--password")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = {"snap_tolerance": a.snap, "vertical_strategy": "lines", "horizontal_strategy": "lines"}
    frames: list[pd.DataFrame] = []
    with pdfplumber.open(a.pdf, password=a.password) as pdf:
        for page in pdf.pages:
            for tbl in page.extract_tables(settings):
                if not tbl or len(tbl) < 2:
                    continue
                df = pd.DataFrame(tbl[1:], columns=[c or f"col{i}" for i, c in enumerate(tbl[0])])
                if a.stitch and frames and list(frames[-1].columns) == list(df.columns):
                    frames[-1] = pd.concat([frames[-1], df], ignore_index=True)
                else:
                    frames.append(df)
    for i, df in enumerate(frames, 1):
        df.to_csv(out / f"table_{i:02d}.csv", index=False)
    print(f"{len(frames)} tables written to {out}/")


if __name__ == "__main__":
    main()

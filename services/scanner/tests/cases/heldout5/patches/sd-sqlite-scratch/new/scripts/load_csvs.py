#!/usr/bin/env python3
import csv
import re
import sqlite3
import sys
from pathlib import Path

db, files = sys.argv[1], sys.argv[2:]
con = sqlite3.connect(db)
for f in files:
    table = re.sub(r"\W+", "_", Path(f).stem.lower())
    with open(f, newline="", encoding="utf-8-sig") as fh:
        rows = csv.reader(fh)
        header = [re.sub(r"\W+", "_", h.strip().lower()) for h in next(rows)]
        con.execute(f'DROP TABLE IF EXISTS "{table}"')
        con.execute(f'CREATE TABLE "{table}" ({", ".join(chr(34) + h + chr(34) + " TEXT" for h in header)})')
        con.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(header))})', rows)
    print(f"{f} -> {table}")
con.commit()

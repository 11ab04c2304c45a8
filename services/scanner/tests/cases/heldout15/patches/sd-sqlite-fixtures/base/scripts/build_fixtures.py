#!/usr/bin/env python3
"""Build tests/fixtures/build/base.sqlite from schema.sql and YAML seeds."""
import sqlite3
from pathlib import Path

import yaml

ROOT = Path("tests/fixtures")
OUT = ROOT / "build" / "base.sqlite"


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(OUT)
    con.execute("PRAGMA foreign_keys = ON")
    con.executescript((ROOT / "schema.sql").read_text())
    for seed in sorted((ROOT / "seeds").glob("*.yaml")):
        rows = yaml.safe_load(seed.read_text()) or []
        if not rows:
            continue
        cols = list(rows[0])
        con.executemany(
            f"INSERT INTO {seed.stem} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            [tuple(r[c] for c in cols) for r in rows],
        )
    con.commit()
    con.close()
    print(f"built {OUT}")


if __name__ == "__main__":
    main()

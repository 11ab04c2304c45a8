"""Minimal batch ETL: extract -> transform -> load."""
import argparse
import logging

import pandas as pd
from dateutil import parser as dtparser

log = logging.getLogger("etl")


def extract(source: str) -> pd.DataFrame:
    return pd.read_csv(source, dtype={"id": "string"})


def transform(df: pd.DataFrame) -> pd.DataFrame:
    df = df.dropna(subset=["id"]).drop_duplicates("id")
    df["created_at"] = df["created_at"].map(lambda s: dtparser.parse(s)).dt.tz_convert("UTC")
    return df


def load(df: pd.DataFrame, out: str) -> None:
    if out.startswith("parquet://"):
        df.to_parquet(out.removeprefix("parquet://") + "part-0.parquet", index=False)
    else:
        from sqlalchemy import create_engine
        df.to_sql("staging_rows", create_engine(out), if_exists="append", index=False, method="multi")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--out", default="parquet://out/")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO)
    df = extract(a.source); log.info("extracted %d rows", len(df))
    df = transform(df); log.info("transformed %d rows", len(df))
    if not a.dry_run:
        load(df, a.out); log.info("loaded into %s", a.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Profile and validate tabular data with pandera."""
import argparse
import datetime as dt
import importlib.util
import pathlib

import pandas as pd
import pandera as pa


def load(path):
    p = pathlib.Path(path)
    return pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)


def profile(df):
    out = pd.DataFrame({"dtype": df.dtypes.astype(str), "nulls": df.isna().sum(), "distinct": df.nunique()})
    print(out.to_markdown())


def check(df, schema_path, name):
    spec = importlib.util.spec_from_file_location("schema", schema_path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    try:
        mod.schema.validate(df, lazy=True)
        print("all checks passed")
    except pa.errors.SchemaErrors as e:
        fc = e.failure_cases
        rep = pathlib.Path("reports") / f"{name}-{dt.date.today()}.md"
        rep.parent.mkdir(exist_ok=True)
        rep.write_text("# Validation report\n\n" + fc.groupby(["column", "check"]).size().to_frame("failures").to_markdown()
                       + "\n\n## Examples\n\n" + fc.head(10).to_markdown())
        print(f"{len(fc)} failures; report at {rep}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["profile", "check"])
    ap.add_argument("path")
    ap.add_argument("--schema")
    a = ap.parse_args()
    df = load(a.path)
    profile(df) if a.cmd == "profile" else check(df, a.schema, pathlib.Path(a.path).stem)

#!/usr/bin/env python3
import csv, pathlib, re, sys, zipfile

HERE = pathlib.Path(__file__).parent
SECRET = re.compile(r"(?im)^(\s*[\w.-]*(password|secret|token|api_key)[\w.-]*\s*[:=]\s*).+$")
rows = list(csv.DictReader(open(HERE.parent / "assets" / "collect.csv")))
with zipfile.ZipFile("support-bundle.zip", "w") as z:
    for r in rows:
        p = pathlib.Path(r["path"])
        if p.is_absolute() or ".." in p.parts or str(p).startswith("~"):
            sys.exit(f"refusing non-project path {p}")
        if p.exists():
            z.writestr(str(p), SECRET.sub(r"\1<redacted>", p.read_text(errors="replace")))
            print("added", p)
print("wrote support-bundle.zip")

#!/usr/bin/env python3
"""Render invoice HTML from YAML (XRechnung XML export is stubbed)."""
import argparse
import pathlib
from decimal import ROUND_HALF_UP, Decimal

import jinja2
import yaml

HERE = pathlib.Path(__file__).resolve().parent.parent / "templates"


def money(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)).replace(".", ",")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--out", default="out")
    a = ap.parse_args()
    d = yaml.safe_load(open(a.data, encoding="utf-8"))
    netto = Decimal(0)
    for p in d["positionen"]:
        g = Decimal(str(p["menge"])) * Decimal(str(p["preis"]))
        p["gesamt"] = money(g)
        netto += g
    ust = netto * Decimal(str(d.get("ust_satz", 19))) / 100
    d.update(netto=money(netto), ust=money(ust), brutto=money(netto + ust))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), autoescape=True)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"rechnung-{d['nummer']}.html").write_text(env.get_template("rechnung.html.j2").render(**d), encoding="utf-8")
    print(f"wrote {out}/rechnung-{d['nummer']}.html")


if __name__ == "__main__":
    main()

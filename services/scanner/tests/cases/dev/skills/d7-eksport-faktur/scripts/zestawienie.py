#!/usr/bin/env python3
"""Zestawienie faktur: sumy netto/VAT/brutto według stawek + kontrola NIP."""
import argparse
import csv
import pathlib
from collections import defaultdict
from decimal import Decimal

WAGI_NIP = (6, 5, 7, 2, 3, 4, 5, 6, 7)


def nip_ok(nip):
    cyfry = [c for c in nip if c.isdigit()]
    if len(cyfry) != 10:
        return False
    suma = sum(int(c) * w for c, w in zip(cyfry, WAGI_NIP))
    return suma % 11 == int(cyfry[9])


def kwota(tekst):
    return Decimal(tekst.replace("\u00a0", "").replace(" ", "").replace(",", "."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plik")
    ap.add_argument("--miesiac", required=True)
    a = ap.parse_args()
    sumy = defaultdict(lambda: [Decimal(0)] * 3)
    with open(a.plik, encoding="cp1250", newline="") as fh:
        for w in csv.DictReader(fh, delimiter=";"):
            if not w["data_wystawienia"].startswith(a.miesiac):
                continue
            if not nip_ok(w["nip_nabywcy"]):
                print(f"UWAGA: nieprawidłowy NIP na fakturze {w['numer']}")
            s = sumy[w["stawka"]]
            for i, pole in enumerate(("netto", "vat", "brutto")):
                s[i] += kwota(w[pole])
    out = pathlib.Path("zestawienia") / f"{a.miesiac}.csv"
    out.parent.mkdir(exist_ok=True)
    with out.open("w", encoding="utf-8", newline="") as fh:
        zap = csv.writer(fh, delimiter=";")
        zap.writerow(["stawka", "netto", "vat", "brutto"])
        for stawka, (n, v, b) in sorted(sumy.items()):
            zap.writerow([stawka, f"{n:.2f}", f"{v:.2f}", f"{b:.2f}"])
    print(out)


if __name__ == "__main__":
    main()

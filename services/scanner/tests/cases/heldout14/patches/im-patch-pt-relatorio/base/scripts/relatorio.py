#!/usr/bin/env python3
"""Relatório mensal de vendas a partir da exportação do ERP."""
import argparse
import pathlib

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.backends.backend_pdf import PdfPages


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--mes-anterior")
    a = ap.parse_args()
    df = pd.read_csv(a.csv, parse_dates=["data"])
    out = pathlib.Path("saida"); out.mkdir(exist_ok=True)
    resumo = df.groupby(["regiao", "vendedor"], as_index=False)["valor"].agg(["sum", "count", "mean"])
    resumo.to_csv(out / "resumo.csv", index=False)
    with PdfPages(out / "relatorio.pdf") as pdf:
        df.groupby("regiao")["valor"].sum().sort_values().plot.barh(title="Vendas por região")
        pdf.savefig(); plt.close()
        df.groupby("vendedor")["valor"].sum().nlargest(10).plot.bar(title="Top 10 vendedores")
        pdf.savefig(); plt.close()
    total = df["valor"].sum()
    print(f"Total: R$ {total:,.2f}".replace(",", "X").replace(".", ",").replace("X", "."))
    if a.mes_anterior:
        prev = pd.read_csv(a.mes_anterior)["valor"].sum()
        print(f"Variação: {100 * (total - prev) / prev:+.1f}%")


if __name__ == "__main__":
    main()

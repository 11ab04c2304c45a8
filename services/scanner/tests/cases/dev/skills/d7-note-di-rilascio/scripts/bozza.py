#!/usr/bin/env python3
"""Genera una bozza di note di rilascio raggruppando le PR per etichetta."""
import argparse
import json
import subprocess

SEZIONI = {"feature": "Novità", "improvement": "Miglioramenti", "bug": "Correzioni"}
ESCLUSE = {"internal", "ci", "deps"}


def pr_unite(da):
    data = subprocess.run(["git", "log", "-1", "--format=%cs", da],
                          capture_output=True, text=True, check=True).stdout.strip()
    out = subprocess.run(["gh", "pr", "list", "--state", "merged", "--limit", "200",
                          "--search", f"merged:>={data}", "--json", "number,title,labels"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--da", required=True)
    args = ap.parse_args()
    gruppi = {v: [] for v in SEZIONI.values()}
    for pr in pr_unite(args.da):
        etichette = {l["name"] for l in pr["labels"]}
        if etichette & ESCLUSE:
            continue
        for e, sezione in SEZIONI.items():
            if e in etichette:
                gruppi[sezione].append(f"- {pr['title']} (#{pr['number']})")
                break
    for sezione, righe in gruppi.items():
        if righe:
            print(f"## {sezione}\n")
            print("\n".join(righe) + "\n")


if __name__ == "__main__":
    main()

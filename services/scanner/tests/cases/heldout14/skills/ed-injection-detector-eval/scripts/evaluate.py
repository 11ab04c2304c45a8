#!/usr/bin/env python3
"""Evaluate an injection detector against the labelled fixture set."""
import argparse
import collections
import importlib
import json
import pathlib

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "assets" / "fixtures.jsonl"


def load_detector(spec: str):
    mod, fn = spec.split(":")
    return getattr(importlib.import_module(mod), fn)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--detector", required=True)
    ap.add_argument("--fixtures", default=str(FIXTURES))
    a = ap.parse_args()
    detect = load_detector(a.detector)
    stats = collections.defaultdict(lambda: collections.Counter())
    wrong = []
    for line in open(a.fixtures, encoding="utf-8"):
        row = json.loads(line)
        pred = bool(detect(row["text"]))  # text is only passed to the detector
        gold = row["label"] == "injection"
        key = ("tp" if gold else "fp") if pred else ("fn" if gold else "tn")
        stats[row["lang"]][key] += 1
        if pred != gold:
            wrong.append(row["id"])
    print(f"{'lang':<5}{'P':>6}{'R':>6}{'F1':>6}")
    for lang, c in sorted(stats.items()):
        p = c["tp"] / max(c["tp"] + c["fp"], 1)
        r = c["tp"] / max(c["tp"] + c["fn"], 1)
        f = 2 * p * r / max(p + r, 1e-9)
        print(f"{lang:<5}{p:>6.2f}{r:>6.2f}{f:>6.2f}")
    print("misclassified:", ", ".join(wrong) or "none")


if __name__ == "__main__":
    main()

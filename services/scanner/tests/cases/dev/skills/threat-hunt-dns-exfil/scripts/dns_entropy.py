#!/usr/bin/env python3
"""Score domains in a resolver-log CSV for DNS-tunnelling indicators (offline)."""
import argparse
import csv
import math
from collections import Counter, defaultdict


def entropy(s: str) -> float:
    c = Counter(s)
    n = len(s)
    return -sum(v / n * math.log2(v / n) for v in c.values()) if n else 0.0


def registrable(q: str) -> str:
    parts = q.rstrip(".").split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else q


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--min-len", type=int, default=40)
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    subs = defaultdict(set)
    ent = defaultdict(list)
    with open(a.csv, newline="") as fh:
        for row in csv.DictReader(fh):
            q = row["qname"].lower()
            label = q.split(".", 1)[0]
            if len(q) < a.min_len:
                continue
            d = registrable(q)
            subs[d].add(label)
            ent[d].append(entropy(label))
    scored = sorted(
        ((len(subs[d]) * (sum(ent[d]) / len(ent[d])), d, len(subs[d])) for d in subs),
        reverse=True,
    )
    for score, d, n in scored[: a.top]:
        print(f"{score:10.1f}  {n:6d} uniq  {d}")


if __name__ == "__main__":
    main()

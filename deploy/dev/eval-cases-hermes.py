#!/usr/bin/env python3
"""Cairn and Hermes Agent's skills_guard side by side on the scanner's case sets.

    python3 deploy/dev/eval-cases-hermes.py --guard <unpacked wheel>/tools/skills_guard.py \\
        --verdicts cairn-verdicts.jsonl --cases services/scanner/tests/cases/dev \\
        --cases services/scanner/tests/cases/heldout

`--verdicts` is the JSONL the evaluator wrote (`evaluate --cases … --verdicts …`): one line
per case with set `cases:<set>`, path = the case id and Cairn's verdict (for a patch, the
verdict of what it introduces). Hermes has no delta mode: a patch is judged by scanning the
patched bundle (`patches/<id>/new`) with `scan_skill(dir, source="community")`, which is
what it would see. Hermes's verdict words are ours (safe, caution, dangerous).
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import tomllib
from pathlib import Path


def load_guard(path: str):
    spec = importlib.util.spec_from_file_location("hermes_skills_guard", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pct(x: int, n: int) -> str:
    return "–" if n == 0 else f"{100.0 * x / n:.1f}%"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--guard", required=True)
    ap.add_argument("--verdicts", required=True)
    ap.add_argument("--cases", action="append", default=[])
    a = ap.parse_args()
    guard = load_guard(a.guard)
    ours = {}
    for line in open(a.verdicts, encoding="utf-8"):
        d = json.loads(line)
        if d["set"].startswith("cases:"):
            ours[(d["set"][len("cases:"):], d["path"])] = d["verdict"]
    for case_dir in a.cases:
        root = Path(case_dir)
        name = root.name
        cases = tomllib.loads((root / "cases.toml").read_text(encoding="utf-8"))["case"]
        rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        expected = collections.Counter()
        for case in cases:
            target = root / ("patches" if case["kind"] == "patch" else "skills") / case["id"]
            if case["kind"] == "patch":
                target = target / "new"
            hermes = guard.scan_skill(target, source="community").verdict
            cairn = ours.get((name, case["id"]), "missing")
            keys = [f"{case['label']} {case['kind']}"]
            if case["label"] == "malicious":
                keys.append(case["category"])
                if case.get("evasive"):
                    keys.append("malicious, evasive")
            else:
                keys.append(f"{case['category']} (benign)")
            for key in keys:
                row = rows[key]
                row["n"] += 1
                row["cairn_d"] += cairn == "dangerous"
                row["hermes_d"] += hermes == "dangerous"
                row["cairn_c"] += cairn in ("caution", "dangerous")
                row["hermes_c"] += hermes in ("caution", "dangerous")
            ok = lambda v: v == case["expect"] if case["label"] == "malicious" else v != "dangerous"  # noqa: E731
            expected[(case["label"], "n")] += 1
            expected[(case["label"], "cairn")] += ok(cairn)
            expected[(case["label"], "hermes")] += ok(hermes)
        print(f"\n### Case set `{name}` ({len(cases)} cases): Cairn and Hermes side by side\n")
        print("| cases | n | Cairn dangerous | Hermes dangerous | Cairn ≥ caution | Hermes ≥ caution |")
        print("|---|---|---|---|---|---|")
        for key in sorted(rows):
            r = rows[key]
            print(f"| {key} | {r['n']} | {pct(r['cairn_d'], r['n'])} | {pct(r['hermes_d'], r['n'])} | "
                  f"{pct(r['cairn_c'], r['n'])} | {pct(r['hermes_c'], r['n'])} |")
        print()
        for label in ("malicious", "benign"):
            n = expected[(label, "n")]
            what = "at the expected verdict (dangerous)" if label == "malicious" else "not judged dangerous"
            print(f"- {label}: Cairn {expected[(label, 'cairn')]}/{n} ({pct(expected[(label, 'cairn')], n)}), "
                  f"Hermes {expected[(label, 'hermes')]}/{n} ({pct(expected[(label, 'hermes')], n)}) {what}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Run Hermes Agent's skill scanner (``tools/skills_guard.py``) on the bundles that our
evaluator (``cargo run --release -p cairn-scanner --example evaluate``) scanned, and
print both scanners' results side by side as Markdown.

Usage::

    python3 deploy/dev/eval-hermes-guard.py \\
        --guard /var/tmp/hermes-wheel/unpacked/tools/skills_guard.py \\
        --verdicts /tmp/cairn-verdicts.jsonl --corpus ../shared/corpus \\
        [--cairn-output /tmp/cairn-eval.md] [--base /work/main] [--jobs N]

Inputs

* ``--verdicts``: the JSONL written by ``evaluate --verdicts`` (one ``{"set", "path",
  "verdict"}`` per bundle). It fixes the bundle list, so both scanners see the same
  bundles. ``malicious`` paths are relative to ``<corpus>/malicious`` (as in
  ``labels.jsonl``, whose label and categories are joined in file order); ``skills`` and
  ``wild`` paths are directories, relative to ``--base`` (the directory the evaluator ran
  in; default: the repository root).
* ``--guard``: path to Hermes's ``skills_guard.py``; it is imported from there (standard
  library only) and nothing of it is copied into this repository.
* ``--cairn-output``: the evaluator's stdout, for its ``Scanned … MB in … s`` line
  (Cairn's throughput). Without it the throughput row for Cairn is left empty.

How bundles are handed to Hermes (``scan_skill(dir, source="community")``)

* Directory bundles are scanned in place, unless a nested directory holds its own
  SKILL.md: the evaluator treats nested skills as separate bundles, so then the bundle's
  own files are copied (``shutil.copy2``, modes kept) into a temp dir which is scanned.
* Single-file fixtures (e.g. atr) are written as ``SKILL.md`` into a temp dir, and
  ``skill-inject`` items (``file.json#id=N``) are rendered exactly as the evaluator does
  (``---\\nname: injected\\ndescription: <description_injection>\\n---\\n<line_injection>\\n``)
  and written as ``SKILL.md`` into a temp dir.
* Only the ``scan_skill`` call is timed (not staging). Bytes are the bundle's own files,
  as the evaluator counts them. Throughput is bytes / summed per-bundle scan time, i.e.
  one core, even with ``--jobs`` > 1 (which only shortens the wall-clock time).

Verdict mapping (Hermes → ours)

Hermes's ``ScanResult.verdict`` already uses our three levels, so the mapping is the
identity: ``safe`` → safe, ``caution`` → caution, ``dangerous`` → dangerous. For reference,
Hermes derives it from finding severities (``_determine_verdict``): any ``critical``
finding → dangerous; else any ``high`` → caution; ``medium``/``low`` only → safe. Its
install policy for a ``community`` source then blocks both caution and dangerous (trusted
sources block only dangerous); that policy is not applied here.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

LEVELS = ("safe", "caution", "dangerous")
MAPPING = {"safe": "safe", "caution": "caution", "dangerous": "dangerous"}

_guard = None


def _load_guard(path: str):
    global _guard
    if _guard is None:
        spec = importlib.util.spec_from_file_location("hermes_skills_guard", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _guard = mod
    return _guard


def _own_files(root: Path) -> list[Path]:
    """A bundle's own files, as the evaluator collects them (symlinks skipped, files
    below a nested directory holding a SKILL.md excluded)."""
    out: list[Path] = []

    def walk(d: Path) -> None:
        try:
            entries = sorted(d.iterdir())
        except OSError:
            return
        for p in entries:
            if p.is_symlink():
                continue
            if p.is_dir():
                if (p / "SKILL.md").is_file():
                    continue  # a nested skill: its own bundle
                walk(p)
            elif p.is_file():
                out.append(p)

    walk(root)
    return out


def _has_nested_skill(root: Path) -> bool:
    for dirpath, dirnames, _ in os.walk(root):
        if Path(dirpath) != root and (Path(dirpath) / "SKILL.md").is_file():
            return True
    return False


def _inject_text(item: dict | None) -> str:
    def s(v):
        return v if isinstance(v, str) else ""

    ins = (item or {}).get("instructions") or {}
    return "---\nname: injected\ndescription: {}\n---\n{}\n".format(
        s(ins.get("description_injection")), s(ins.get("line_injection"))
    )


_inject_cache: dict[str, list] = {}


def _task(args):
    """Scan one bundle with Hermes; returns (index, verdict, seconds, bytes)."""
    idx, set_, path, guard_path, corpus, base = args
    guard = _load_guard(guard_path)
    malicious = Path(corpus) / "malicious"
    with tempfile.TemporaryDirectory(prefix="hermes-eval-") as tmp:
        tmpdir = Path(tmp) / "skill"
        target: Path
        if set_ == "malicious" and "#id=" in path:
            file, id_ = path.split("#id=", 1)
            if file not in _inject_cache:
                _inject_cache[file] = json.loads((malicious / file).read_text(encoding="utf-8"))
            item = next((i for i in _inject_cache[file] if str(i.get("id")) == id_), None)
            tmpdir.mkdir()
            data = _inject_text(item).encode("utf-8")
            (tmpdir / "SKILL.md").write_bytes(data)
            target, nbytes = tmpdir, len(data)
        else:
            src = malicious / path if set_ == "malicious" else Path(path)
            if not src.is_absolute():
                src = Path(base) / src
            if src.is_file():
                tmpdir.mkdir()
                shutil.copy2(src, tmpdir / "SKILL.md")
                target, nbytes = tmpdir, src.stat().st_size
            else:
                own = _own_files(src)
                nbytes = sum(f.stat().st_size for f in own)
                if _has_nested_skill(src):
                    for f in own:
                        dst = tmpdir / f.relative_to(src)
                        dst.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(f, dst)
                    tmpdir.mkdir(exist_ok=True)
                    target = tmpdir
                else:
                    target = src
        started = time.perf_counter()
        result = guard.scan_skill(target, source="community")
        elapsed = time.perf_counter() - started
    return idx, MAPPING[result.verdict], elapsed, nbytes


def pct(x: int, n: int) -> str:
    return "–" if n == 0 else f"{100.0 * x / n:.1f}%"


class Tally:
    def __init__(self) -> None:
        self.n = 0
        self.c = collections.Counter()

    def add(self, v: str) -> None:
        self.n += 1
        self.c[v] += 1

    def dangerous(self) -> str:
        return pct(self.c["dangerous"], self.n)

    def at_least_caution(self) -> str:
        return pct(self.c["dangerous"] + self.c["caution"], self.n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guard", required=True, help="path to Hermes's tools/skills_guard.py")
    ap.add_argument("--verdicts", required=True, help="JSONL from `evaluate --verdicts`")
    ap.add_argument("--corpus", default="../shared/corpus")
    ap.add_argument("--base", default=str(Path(__file__).resolve().parents[2]),
                    help="directory the evaluator ran in (relative paths resolve against it)")
    ap.add_argument("--cairn-output", help="the evaluator's stdout (for its throughput line)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()

    corpus = Path(a.corpus)
    if not corpus.is_absolute():
        corpus = Path(a.base) / corpus
    rows = [json.loads(l) for l in Path(a.verdicts).read_text().splitlines() if l.strip()]
    # The scanner's own case sets are compared by eval-cases-hermes.py.
    rows = [r for r in rows if not r["set"].startswith("cases:")]
    labels = [json.loads(l) for l in (corpus / "malicious" / "labels.jsonl").read_text().splitlines() if l.strip()]
    mal_rows = [r for r in rows if r["set"] == "malicious"]
    if len(mal_rows) != len(labels) or any(r["path"] != l["path"] for r, l in zip(mal_rows, labels)):
        sys.exit("verdicts file does not match malicious/labels.jsonl (rerun the evaluator)")
    label_of = iter(labels)
    meta = [next(label_of) if r["set"] == "malicious" else None for r in rows]

    _load_guard(a.guard)  # fail early if it cannot be imported
    tasks = [(i, r["set"], r["path"], a.guard, str(corpus), a.base) for i, r in enumerate(rows)]
    hermes: list[str | None] = [None] * len(rows)
    h_secs = 0.0
    h_bytes = 0
    wall0 = time.perf_counter()
    if a.jobs > 1:
        with ProcessPoolExecutor(max_workers=a.jobs) as ex:
            results = ex.map(_task, tasks, chunksize=8)
            for idx, v, secs, nb in results:
                hermes[idx], h_secs, h_bytes = v, h_secs + secs, h_bytes + nb
    else:
        for t in tasks:
            idx, v, secs, nb = _task(t)
            hermes[idx], h_secs, h_bytes = v, h_secs + secs, h_bytes + nb
    wall = time.perf_counter() - wall0

    def src_of(r):
        p = Path(r["path"])
        if not p.is_absolute():
            p = Path(a.base) / p
        return os.path.relpath(p, corpus / r["set"]).split(os.sep)[0]

    by_label = collections.defaultdict(lambda: (Tally(), Tally()))
    by_cat = collections.defaultdict(lambda: (Tally(), Tally()))
    by_source = {"skills": collections.defaultdict(lambda: (Tally(), Tally())),
                 "wild": collections.defaultdict(lambda: (Tally(), Tally()))}
    totals = {"skills": (Tally(), Tally()), "wild": (Tally(), Tally())}
    for r, m, hv in zip(rows, meta, hermes):
        pair = (r["verdict"], hv)
        if r["set"] == "malicious":
            for t, v in zip(by_label[m["label"]], pair):
                t.add(v)
            if m["label"] == "malicious":
                for c in m.get("categories") or []:
                    for t, v in zip(by_cat[c], pair):
                        t.add(v)
        else:
            for t, v in zip(by_source[r["set"]][src_of(r)], pair):
                t.add(v)
            for t, v in zip(totals[r["set"]], pair):
                t.add(v)

    head = ("| {} | bundles | Cairn dangerous | Hermes dangerous | Cairn ≥ caution | Hermes ≥ caution |\n"
            "|---|---|---|---|---|---|")

    def row(name, pair):
        c, h = pair
        return f"| {name} | {c.n} | {c.dangerous()} | {h.dangerous()} | {c.at_least_caution()} | {h.at_least_caution()} |"

    print("# Cairn scanner vs Hermes Agent skills_guard (same bundles)\n")
    print("## Labeled fixtures (`malicious/labels.jsonl`)\n")
    print(head.format("label"))
    for label in sorted(by_label):
        print(row(label, by_label[label]))
    print("\n### Recall on label `malicious`, per category (categories with ≥ 5 fixtures)\n")
    print(head.format("category"))
    for c in sorted(by_cat):
        if by_cat[c][0].n >= 5:
            print(row(c, by_cat[c]))
    for set_, title in (("skills", "Curated real skills (`skills/`): false-alarm rates"),
                        ("wild", "Unlabeled ClawHub snapshot (`wild/`): alert rates")):
        print(f"\n## {title}\n")
        print(head.format("source"))
        for s in sorted(by_source[set_]):
            print(row(s, by_source[set_][s]))
        print(row("**all**", totals[set_]))

    # Where the two disagree, on the bundles with a known answer.
    agree = sum(1 for r, hv in zip(rows, hermes) if r["verdict"] == hv)
    print(f"\nSame verdict on {agree}/{len(rows)} bundles ({pct(agree, len(rows))}).")

    print("\n## Throughput (one core)\n")
    print("| scanner | bundles | MB | scan time (s) | bundles/s | MB/s |\n|---|---|---|---|---|---|")
    n = len(rows)
    if a.cairn_output and Path(a.cairn_output).is_file():
        m = re.search(r"Scanned ([\d.]+) MB in ([\d.]+) s", Path(a.cairn_output).read_text())
        if m:
            mb, s = float(m.group(1)), float(m.group(2))
            print(f"| Cairn (release, Rust) | {n} | {mb:.1f} | {s:.2f} | {n / s:.0f} | {mb / s:.1f} |")
    else:
        print("| Cairn | – | – | – | – | – |")
    hmb = h_bytes / 1e6
    print(f"| Hermes skills_guard (CPython {sys.version.split()[0]}) | {n} | {hmb:.1f} | {h_secs:.2f} "
          f"| {n / h_secs:.1f} | {hmb / h_secs:.2f} |")
    print(f"\nHermes wall clock: {wall:.1f} s with {a.jobs} worker process(es); its time above is the sum "
          "of per-bundle `scan_skill` times (staging excluded). Cairn's is the evaluator's own "
          "`Scanned … MB in … s` line.")


if __name__ == "__main__":
    main()

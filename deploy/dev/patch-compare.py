#!/usr/bin/env python3
"""Score fuzzy patch matchers against the cases written by ``patch-cases.py`` and print a
Markdown comparison.

Usage::

    python3 deploy/dev/patch-compare.py --cases cases.jsonl \\
        --result cairn=cairn.jsonl --result hermes=hermes.jsonl [--details wrong.md]

Each ``--result`` file holds one protocol line per case line, in the same order
(``{"applied", "content", "strategy", "similarity", "error", "micros"}``). The first
``--result`` is the baseline of the speed ratio.

Scoring, per case

* correct: applied and ``content == expect``, or not applied when ``expect`` is null;
* refused: a positive case (``expect`` not null) that was not applied;
* wrong:   applied with ``content != expect``, or applied when ``expect`` is null.

A result line that is missing or not a protocol object is counted as refused, and
reported. Times: median / p99 / max ``micros`` over all cases except ``large-miss``,
which is reported on its own (target for our matcher: <= 5 ms per case); the speed
ratio is the median over cases of (matcher micros / baseline micros), each at least 1.

Up to 10 ``wrong`` examples per matcher (spread over shapes; id, shape, strategy and a
unified diff of expected vs got, at most 15 lines) go to ``--details`` or, without it,
to stderr. For a case that had to be refused, "expected" is the unchanged file.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import math
import statistics
import sys

SHAPE_ORDER = (
    "exact", "trailing-space", "indent", "smart-punct", "escaped-newlines",
    "collapsed-space", "boundary-blank", "misremembered-replaced",
    "absent", "misremembered-token", "ambiguous", "large-miss",
)
LARGE_MISS = "large-miss"
LARGE_MISS_TARGET_US = 5000
MAX_EXAMPLES = 10
MAX_DIFF_LINES = 15


def parse_result(line: str | None):
    """A protocol object, or None when the line is missing or malformed."""
    if line is None:
        return None
    try:
        r = json.loads(line)
    except ValueError:
        return None
    if not isinstance(r, dict) or not isinstance(r.get("applied"), bool):
        return None
    if r["applied"] and not isinstance(r.get("content"), str):
        return None
    return r


def short_diff(expected: str, got: str) -> str:
    lines = list(difflib.unified_diff(expected.splitlines(keepends=True), got.splitlines(keepends=True),
                                      "expected", "got", n=1))
    lines = [l if l.endswith("\n") else l + "\n" for l in lines]
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"... ({len(lines) - MAX_DIFF_LINES} more diff lines)\n"]
    return "".join(lines)


def percentile(sorted_vals: list[int], q: float) -> int:
    if not sorted_vals:
        return 0
    return sorted_vals[max(0, math.ceil(q * len(sorted_vals)) - 1)]


class Matcher:
    def __init__(self, name: str, path: str) -> None:
        self.name, self.path = name, path
        self.file = open(path, encoding="utf-8")
        self.tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.micros: list[int] = []
        self.large_miss: list[int] = []
        self.strategies: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.bad = 0
        self.examples: dict[str, list[str]] = collections.defaultdict(list)

    def next_line(self) -> str | None:
        line = self.file.readline()
        return line if line else None


def score(m: Matcher, c: dict, r) -> tuple[str, int]:
    """Record one case for one matcher; returns (verdict, micros)."""
    if r is None:
        m.bad += 1
        r = {"applied": False, "micros": 0}
    expect = c.get("expect")
    applied = r["applied"]
    if not applied:
        verdict = "correct" if expect is None else "refused"
    else:
        verdict = "correct" if expect is not None and r["content"] == expect else "wrong"
    m.tally[c["shape"]][verdict] += 1
    micros = int(r.get("micros") or 0)
    (m.large_miss if c["shape"] == LARGE_MISS else m.micros).append(micros)
    if applied:
        st = m.strategies[str(r.get("strategy"))]
        st["applied"] += 1
        st[verdict] += 1
    if verdict == "wrong" and len(m.examples[c["shape"]]) < MAX_EXAMPLES:
        exp = c["content"] if expect is None else expect
        note = "must be refused; diff of the unchanged file vs got" if expect is None else "expected vs got"
        m.examples[c["shape"]].append(
            f"### {c.get('id')} ({c['shape']}), strategy {r.get('strategy')}: {note}\n\n"
            f"```diff\n{short_diff(exp, r['content'])}```\n")
    return verdict, micros


def pct(x: int, n: int) -> str:
    return "–" if n == 0 else f"{x} ({100.0 * x / n:.1f}%)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--result", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--details", help="write the wrong examples here instead of stderr")
    a = ap.parse_args()

    matchers = []
    for spec in a.result:
        name, sep, path = spec.partition("=")
        if not sep:
            sys.exit(f"--result wants NAME=PATH, got {spec!r}")
        matchers.append(Matcher(name, path))

    shapes: collections.Counter = collections.Counter()
    positive: set[str] = set()
    ratios: dict[str, list[float]] = {m.name: [] for m in matchers[1:]}
    with open(a.cases, encoding="utf-8") as cases:
        for line in cases:
            c = json.loads(line)
            shapes[c["shape"]] += 1
            if c.get("expect") is not None:
                positive.add(c["shape"])
            times = [score(m, c, parse_result(m.next_line()))[1] for m in matchers]
            if c["shape"] != LARGE_MISS:
                for m, t in zip(matchers[1:], times[1:]):
                    ratios[m.name].append(max(t, 1) / max(times[0], 1))
    for m in matchers:
        if m.next_line() is not None:
            m.bad += 1  # more result lines than cases

    order = [s for s in SHAPE_ORDER if s in shapes] + sorted(s for s in shapes if s not in SHAPE_ORDER)
    n_total = sum(shapes.values())
    n_pos = sum(shapes[s] for s in positive)
    out = [f"# Fuzzy patch matchers: {', '.join(m.name for m in matchers)}", "",
           f"{n_total} cases: {n_pos} must apply (exact resulting file expected), "
           f"{n_total - n_pos} must be refused.", ""]
    for m in matchers:
        if m.bad:
            out += [f"**{m.name}: {m.bad} result lines missing, extra or malformed** "
                    "(missing/malformed counted as refused).", ""]
    out += ["## Accuracy (correct / refused / wrong)", ""]
    head = "| shape | must | n |" + "".join(f" {m.name} correct | refused | wrong |" for m in matchers)
    out += [head, "|" + " --- |" * (3 + 3 * len(matchers))]

    def row(label: str, must: str, group: list[str], with_pct: bool) -> str:
        n = sum(shapes[s] for s in group)
        cells = [label, must, str(n)]
        for m in matchers:
            for v in ("correct", "refused", "wrong"):
                x = sum(m.tally[s][v] for s in group)
                cells.append(pct(x, n) if with_pct else str(x))
        return "| " + " | ".join(cells) + " |"

    for s in order:
        out.append(row(s, "apply" if s in positive else "refuse", [s], False))
    out.append(row("**all apply**", "apply", [s for s in order if s in positive], True))
    out.append(row("**all refuse**", "refuse", [s for s in order if s not in positive], True))
    out.append(row("**total**", "", order, True))

    out += ["", f"## Time (µs per call; `{LARGE_MISS}` apart, target ≤ {LARGE_MISS_TARGET_US} µs)", "",
            "| matcher | median | p99 | max | total s | large-miss median | large-miss max |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for m in matchers:
        t = sorted(m.micros)
        lm = sorted(m.large_miss)
        out.append(f"| {m.name} | {statistics.median(t) if t else 0:.0f} | {percentile(t, 0.99)} | "
                   f"{t[-1] if t else 0} | {sum(t) / 1e6:.2f} | "
                   f"{statistics.median(lm) if lm else 0:.0f} | {lm[-1] if lm else '–'} |")
    out.append("")
    base = matchers[0].name
    for name, rs in ratios.items():
        if rs:
            r = statistics.median(rs)
            out.append(f"Median per-case time ratio {name} ÷ {base}: {r:.2f}× "
                       f"({base} {'faster' if r > 1 else 'slower or equal'}).")
    for m in matchers:
        if m.large_miss:
            worst = max(m.large_miss)
            out.append(f"Large-miss {m.name}: worst {worst} µs "
                       f"({'within' if worst <= LARGE_MISS_TARGET_US else 'over'} the 5 ms target).")

    out += ["", "## Strategies of applied cases", "",
            "| matcher | strategy | applied | correct | wrong |", "| --- | --- | --- | --- | --- |"]
    for m in matchers:
        for st, c in sorted(m.strategies.items(), key=lambda kv: -kv[1]["applied"]):
            out.append(f"| {m.name} | {st} | {c['applied']} | {c['correct']} | {c['wrong']} |")
    print("\n".join(out))

    details = []
    for m in matchers:
        picked: list[str] = []
        queues = [list(m.examples[s]) for s in order if m.examples[s]]
        while len(picked) < MAX_EXAMPLES and any(queues):
            for q in queues:
                if q and len(picked) < MAX_EXAMPLES:
                    picked.append(q.pop(0))
        wrong = sum(m.tally[s]["wrong"] for s in order)
        details.append(f"## {m.name}: {wrong} wrong, {len(picked)} shown\n")
        details.extend(picked)
    text = "\n".join(details)
    if a.details:
        with open(a.details, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text, file=sys.stderr)


if __name__ == "__main__":
    main()

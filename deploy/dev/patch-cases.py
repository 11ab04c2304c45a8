#!/usr/bin/env python3
"""Generate fuzzy-patch benchmark cases from real SKILL.md edits (before/after pairs).

Usage::

    python3 deploy/dev/patch-cases.py ../shared/corpus/edits/hermes /tmp/cases.jsonl \\
        [--seed N] [--max-per-pair K] [--large-miss N]

Reads ``NNNN_before.md`` / ``NNNN_after.md`` pairs (ids from ``index.tsv`` when present,
else every ``*_before.md``) and writes one JSON line per case::

    {"id", "shape", "content", "old", "new", "replace_all", "expect"}

``content``/``old``/``new``/``replace_all`` follow the patch batch protocol (see
``bench-patch.sh``); ``expect`` is the exact file an ideal matcher produces, or null
when it must refuse. Nothing from the corpus is written anywhere but ``out.jsonl``
(run this into a temp dir, never into the repository).

How hunks are derived

* ``difflib.SequenceMatcher`` over the lines (line ends kept) of before and after; each
  replace/delete/insert opcode is one hunk. ``old`` = the hunk's before-lines, ``new`` =
  its after-lines, both widened with the same context lines *of the before file* (so
  ``new`` never carries a neighbouring hunk's change) until ``old`` is non-blank, differs
  from ``new`` and occurs exactly once in the before file. Inserts and deletes always get
  at least one context line (an insert has no before-lines; a bare delete would leave
  ``new`` empty). Context is added above first, then below, alternating, at most 5 lines
  in all; hunks that are still not unique are skipped. When both strings end in a line
  break, one is dropped from each (agents rarely send it).
* ``expect`` for a positive case = before with that one region replaced by the
  unperturbed ``new``: the other hunks of the pair are not applied.
* At most ``--max-per-pair`` hunks per pair (default 3) are used, drawn with a
  ``random.Random`` seeded by ``--seed`` and the pair id, so output is deterministic.

Shapes (at most one case per hunk and shape, only when the perturbation changes ``old``)

positive (expect = before with the region replaced by the original ``new``):
  exact            old as in the file.
  trailing-space   trailing spaces/tabs added to, or removed from, some lines of old.
  indent           every non-blank line of old AND new re-indented by one consistent
                   change of the base indent (dedent, deeper, spaces -> tab); the ideal
                   matcher maps new back onto the file's indentation.
  smart-punct      straight quotes/dashes/ellipsis in old made typographic, or (when the
                   region has them) the file's typographic ones written in ASCII.
  escaped-newlines old on one line with literal backslash-n between its lines.
  collapsed-space  runs of 2+ spaces inside lines collapsed to one.
  boundary-blank   extra blank (or whitespace-only) lines before/after old, only on a
                   side where the file's neighbouring line is not blank (else matching
                   that blank line too would be a fair reading).
Only old is perturbed (new is the real after text), except for ``indent``. A perturbed
case is emitted only when the perturbed old does not occur verbatim in the file and the
hunk's region is the only match under a coarse normalisation (lines stripped, runs of
blanks collapsed, typographic punctuation mapped to ASCII) — so the ideal answer is
unambiguous.

negative (expect = null):
  absent               old (and new) of a hunk of a pair with a different path; its
                       lines do not occur here (not even after normalisation).
  misremembered-token  old widened to >= 3 lines; one number/identifier token of a middle
                       line changed (first and last lines intact): the anchor-match trap.
                       A line that new keeps (context) is preferred, and carries the
                       same change in new: applying would write the wrong token.
                       When only a line the edit replaces has a token, the case is
                       `misremembered-replaced` instead, and positive: applying the edit
                       at that block writes exactly what the agent intended.
  ambiguous            one whole line that occurs 2+ times in the file, replace_all false
                       (as many per pair as hunks used, at least one; lines of 12+
                       characters preferred).
  large-miss           synthetic: 10,000 lines (before files concatenated) and a 40-line
                       old of corpus words that matches nothing. Timing target for our
                       matcher: <= 5 ms per case.

A per-shape summary goes to stderr.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import random
import re
import sys
from pathlib import Path

MAX_CONTEXT = 5
LARGE_MISS_LINES = 10_000
LARGE_MISS_OLD_LINES = 40

SHAPES = (
    "exact", "trailing-space", "indent", "smart-punct", "escaped-newlines",
    "collapsed-space", "boundary-blank", "misremembered-replaced",
    "absent", "misremembered-token", "ambiguous", "large-miss",
)

# Typographic punctuation and its usual ASCII spelling.
TO_ASCII = {
    "\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'",
    "\u2014": "--", "\u2013": "-", "\u2026": "...", "\u00a0": " ",
}
_LINE_RE = re.compile(r"[^\n]*\n|[^\n]+$")
_BLANK_RUN = re.compile(r"[ \t]+")
_INNER_SPACES = re.compile(r"(?<=\S) {2,}(?=\S)")
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,}\b")


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept (unlike str.splitlines, only ``\\n`` splits)."""
    return _LINE_RE.findall(text)


def to_ascii(s: str) -> str:
    for k, v in TO_ASCII.items():
        s = s.replace(k, v)
    return s


def coarse(line: str) -> str:
    """The coarse line normalisation used to check that a fuzzy match is unambiguous."""
    return _BLANK_RUN.sub(" ", to_ascii(line)).strip()


def unique_exact(text: str, s: str) -> bool:
    i = text.find(s)
    return i >= 0 and text.find(s, i + 1) < 0


def count_windows(hay: list[str], pat: list[str]) -> int:
    n = len(pat)
    if n == 0 or n > len(hay):
        return 0
    first = pat[0]
    return sum(1 for i in range(len(hay) - n + 1) if hay[i] == first and hay[i:i + n] == pat)


class Pair:
    def __init__(self, pid: str, path: str, before: str, after: str) -> None:
        self.id, self.path, self.before, self.after = pid, path, before, after
        self.blines = split_lines(before)
        self.alines = split_lines(after)
        self.coarse = [coarse(l.rstrip("\n")) for l in self.blines]
        self.offsets = [0]
        for l in self.blines:
            self.offsets.append(self.offsets[-1] + len(l))


class Hunk:
    """One region of a before file: lines [a, b) and the replacement, with context."""

    def __init__(self, pair: Pair, a: int, b: int, new_mid: list[str], up: int, down: int):
        self.pair, self.a, self.b, self.new_mid, self.up, self.down = pair, a, b, new_mid, up, down
        bl = pair.blines
        lo, hi = a - up, b + down
        old = "".join(bl[lo:hi])
        new = "".join(bl[lo:a]) + "".join(new_mid) + "".join(bl[b:hi])
        if old.endswith("\n") and new.endswith("\n"):
            old, new = old[:-1], new[:-1]
        self.lo, self.hi, self.old, self.new = lo, hi, old, new
        self.start = pair.offsets[lo]

    def valid(self) -> bool:
        return (self.old.strip() != "" and self.old != self.new
                and unique_exact(self.pair.before, self.old))

    def expect(self) -> str:
        """before with this one region replaced by the unperturbed new."""
        before = self.pair.before
        return before[:self.start] + self.new + before[self.start + len(self.old):]

    def old_lines(self) -> list[str]:
        return self.old.split("\n")

    def fuzzy_unique(self) -> bool:
        """The region is the only one matching old's lines under the coarse normalisation."""
        return count_windows(self.pair.coarse, [coarse(l) for l in self.old_lines()]) == 1


def widen(pair: Pair, a: int, b: int, new_mid: list[str], min_ctx: int, min_lines: int = 1,
          start: tuple[int, int] = (0, 0)) -> Hunk | None:
    """Add context (above first, then below, alternating; at most MAX_CONTEXT lines)
    until the hunk is valid (and spans at least ``min_lines`` lines)."""
    n = len(pair.blines)
    up, down = start
    while True:
        if up + down >= min_ctx:
            h = Hunk(pair, a, b, new_mid, up, down)
            if h.valid() and h.hi - h.lo >= min_lines:
                return h
        if up + down >= MAX_CONTEXT:
            return None
        can_up, can_down = a - up > 0, b + down < n
        if not can_up and not can_down:
            return None
        if can_up and (up <= down or not can_down):
            up += 1
        else:
            down += 1


def hunks_of(pair: Pair) -> list[Hunk]:
    sm = difflib.SequenceMatcher(None, pair.blines, pair.alines, autojunk=False)
    out = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        h = widen(pair, i1, i2, pair.alines[j1:j2], min_ctx=0 if tag == "replace" else 1)
        if h is not None:
            out.append(h)
    return out


def case(cid: str, shape: str, content: str, old: str, new: str, expect: str | None) -> dict:
    return {"id": cid, "shape": shape, "content": content, "old": old, "new": new,
            "replace_all": False, "expect": expect}


# ---- positive perturbations: each returns (old, new) or None when not applicable -------

def p_trailing_space(h: Hunk, rng: random.Random):
    lines = h.old_lines()
    idx = [i for i in range(len(lines)) if rng.random() < 0.5] or [rng.randrange(len(lines))]
    for i in idx:
        stripped = lines[i].rstrip(" \t")
        lines[i] = stripped if stripped != lines[i] else stripped + rng.choice([" ", "  ", "\t", " \t"])
    return "\n".join(lines), h.new


def _leading(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def p_indent(h: Hunk, rng: random.Random):
    old_l, new_l = h.old_lines(), h.new.split("\n")
    nonblank = [l for l in old_l + new_l if l.strip()]
    base = _leading(nonblank[0])
    for l in nonblank:
        while not l.startswith(base):
            base = base[:-1]
    if base:
        options = ["", base + "  "] + (["\t"] if set(base) == {" "} else [])
    else:
        options = ["  ", "    ", "\t"]
    to = rng.choice(options)

    def re_indent(lines: list[str]) -> str:
        return "\n".join(to + l[len(base):] if l.strip() else l for l in lines)

    return re_indent(old_l), re_indent(new_l)


def p_smart_punct(h: Hunk, rng: random.Random):
    old = h.old
    has_unicode = any(c in old for c in TO_ASCII if c != "\u00a0")
    has_ascii = bool(re.search(r"[\"']|--|\s-\s|\.\.\.", old))
    if has_unicode and (not has_ascii or rng.random() < 0.7):
        out = old
        for c in ("\u201c", "\u201d", "\u2018", "\u2019", "\u2014", "\u2013", "\u2026"):
            out = out.replace(c, TO_ASCII[c])
        return out, h.new
    if not has_ascii:
        return None
    lines = []
    for line in old.split("\n"):
        line = line.replace("...", "\u2026").replace("--", "\u2014")
        line = re.sub(r"(?<=\s)-(?=\s)", "\u2013", line)
        line = re.sub(r"(?<=\w)'", "\u2019", line)
        line = line.replace("'", "\u2018")
        parts = line.split('"')
        line = parts[0] + "".join(("\u201c" if k % 2 == 0 else "\u201d") + p
                                  for k, p in enumerate(parts[1:]))
        lines.append(line)
    return "\n".join(lines), h.new


def p_escaped_newlines(h: Hunk, rng: random.Random):
    if "\n" not in h.old or "\\n" in h.old:
        return None
    return h.old.replace("\n", "\\n"), h.new


def p_collapsed_space(h: Hunk, rng: random.Random):
    return _INNER_SPACES.sub(" ", h.old), h.new


def p_boundary_blank(h: Hunk, rng: random.Random):
    lines = h.old_lines()
    if not lines[0].strip() or not lines[-1].strip():
        return None  # trimming would eat the region's own blank lines
    # Extra lines only on a side where the file has no blank line next to the region, so
    # that they cannot be read as part of the region (and trimming is the only reading).
    bl = h.pair.blines
    pre_ok = h.lo == 0 or bl[h.lo - 1].strip() != ""
    post_ok = h.hi == len(bl) or bl[h.hi].strip() != ""
    options = [(pre, post)
               for pre in (["", "\n", "\n\n", "  \n"] if pre_ok else [""])
               for post in (["", "\n", "\n\n", "\n  "] if post_ok else [""])
               if pre or post]
    options = [o for o in options if o[0] + h.old + o[1] not in h.pair.before]
    if not options:
        return None
    pre, post = rng.choice(options)
    return pre + h.old + post, h.new


POSITIVE = {
    "trailing-space": p_trailing_space,
    "indent": p_indent,
    "smart-punct": p_smart_punct,
    "escaped-newlines": p_escaped_newlines,
    "collapsed-space": p_collapsed_space,
    "boundary-blank": p_boundary_blank,
}


# ---- negative cases ---------------------------------------------------------------------

def absent_case(h: Hunk, pool: list[Hunk], rng: random.Random):
    pair = h.pair
    have = set(pair.coarse)
    for _ in range(20):
        o = rng.choice(pool)
        if o.pair.path == pair.path or o.old in pair.before:
            continue
        norm = [coarse(l) for l in o.old_lines()]
        content_lines = [l for l in norm if l]
        if not content_lines or count_windows(pair.coarse, norm) > 0:
            continue
        if sum(l in have for l in content_lines) * 2 >= len(content_lines):
            continue
        return o.old, o.new
    return None


def misremembered_case(h: Hunk, vocab: list[str], rng: random.Random):
    if h.hi - h.lo < 3:
        h = widen(h.pair, h.a, h.b, h.new_mid, min_ctx=0, min_lines=3, start=(h.up, h.down))
        if h is None:
            return None
    lines = h.old_lines()
    new_lines = h.new.split("\n")
    middle = list(range(1, len(lines) - 1))
    rng.shuffle(middle)
    # Prefer a context line (also in new): applying the patch then writes the wrong token.
    middle.sort(key=lambda i: lines[i] not in new_lines)
    for i in middle:
        line = lines[i]
        tokens = [(m, "num") for m in _NUMBER.finditer(line)] + [(m, "word") for m in _WORD.finditer(line)]
        if not tokens:
            continue
        m, kind = rng.choice(tokens)
        tok = m.group()
        if kind == "num":
            repl = str(int(tok) + rng.randint(1, 9))
        else:
            choices = [w for w in vocab if w != tok and w.lower() != tok.lower()]
            repl = rng.choice(choices)
        changed = line[:m.start()] + repl + line[m.end():]
        old = "\n".join(lines[:i] + [changed] + lines[i + 1:])
        if old in h.pair.before or count_windows(h.pair.coarse, [coarse(l) for l in old.split("\n")]):
            continue
        kept = line in new_lines
        if kept:
            new_lines[new_lines.index(line)] = changed
        return old, "\n".join(new_lines), kept
    return None


def ambiguous_cases(pair: Pair, k: int, rng: random.Random) -> list[tuple[str, str]]:
    counts = collections.Counter(l.rstrip("\n") for l in pair.blines)
    cand = sorted(l for l, c in counts.items() if c >= 2 and len(l.strip()) >= 3)
    long = [l for l in cand if len(l.strip()) >= 12]
    cand = long or cand
    picked = rng.sample(cand, min(k, len(cand)))
    return [(l, l.rstrip() + " (edited)") for l in picked]


def large_miss_cases(pairs: list[Pair], vocab: list[str], n: int, rng: random.Random) -> list[dict]:
    out = []
    for k in range(n):
        order = pairs[:]
        rng.shuffle(order)
        lines: list[str] = []
        for p in order:
            lines.extend(l if l.endswith("\n") else l + "\n" for l in p.blines)
            if len(lines) >= LARGE_MISS_LINES:
                break
        content = "".join(lines[:LARGE_MISS_LINES])
        hay = [coarse(l.rstrip("\n")) for l in lines[:LARGE_MISS_LINES]]
        while True:
            old_l = []
            for _ in range(LARGE_MISS_OLD_LINES):
                if rng.random() < 0.1:
                    old_l.append("")
                else:
                    words = " ".join(rng.choice(vocab) for _ in range(rng.randint(4, 12)))
                    old_l.append(rng.choice(["- ", "", "  - ", "## "]) + words)
            old = "\n".join(old_l)
            if old not in content and not count_windows(hay, [coarse(l) for l in old_l]):
                break
        new = "\n".join(old_l[:20] + ["- replaced"] + old_l[20:])
        out.append(case(f"large-miss-{k + 1}", "large-miss", content, old, new, None))
    return out


def load_pairs(root: Path) -> list[Pair]:
    ids: list[tuple[str, str]] = []
    index = root / "index.tsv"
    if index.is_file():
        rows = index.read_text(encoding="utf-8").splitlines()
        head = rows[0].split("\t")
        for row in rows[1:]:
            f = dict(zip(head, row.split("\t")))
            ids.append((f["id"], f.get("path", "")))
    else:
        ids = [(p.name[:-len("_before.md")], "") for p in sorted(root.glob("*_before.md"))]
    pairs = []
    for pid, path in ids:
        try:
            before = (root / f"{pid}_before.md").read_text(encoding="utf-8")
            after = (root / f"{pid}_after.md").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            print(f"skipping pair {pid}: {e}", file=sys.stderr)
            continue
        pairs.append(Pair(pid, path or pid, before, after))
    return pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("edits", help="directory of NNNN_before.md / NNNN_after.md pairs")
    ap.add_argument("out", help="JSONL file to write")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-per-pair", type=int, default=3, help="hunks used per pair")
    ap.add_argument("--large-miss", type=int, default=3, help="number of large-miss cases")
    a = ap.parse_args()

    pairs = load_pairs(Path(a.edits))
    if not pairs:
        sys.exit(f"no before/after pairs in {a.edits}")
    vocab = sorted({w for p in pairs for w in _WORD.findall(p.before)})

    chosen: dict[str, list[Hunk]] = {}
    pool: list[Hunk] = []
    for p in pairs:
        hs = hunks_of(p)
        pool.extend(hs)
        rng = random.Random(f"{a.seed}:{p.id}:hunks")
        pick = sorted(rng.sample(range(len(hs)), min(a.max_per_pair, len(hs))))
        chosen[p.id] = [hs[i] for i in pick]

    cases: list[dict] = []
    for p in pairs:
        rng = random.Random(f"{a.seed}:{p.id}:cases")
        for h in chosen[p.id]:
            base = f"{p.id}-L{h.a + 1}"
            cases.append(case(f"{base}-exact", "exact", p.before, h.old, h.new, h.expect()))
            fuzzy_ok = h.fuzzy_unique()
            for shape, fn in POSITIVE.items():
                if not fuzzy_ok:
                    break
                r = fn(h, rng)
                if r is None or r[0] == h.old or r[0] in p.before:
                    continue
                cases.append(case(f"{base}-{shape}", shape, p.before, r[0], r[1], h.expect()))
            r = absent_case(h, pool, rng)
            if r is not None:
                cases.append(case(f"{base}-absent", "absent", p.before, r[0], r[1], None))
            r = misremembered_case(h, vocab, rng)
            if r is not None and r[2]:
                cases.append(case(f"{base}-misremembered-token", "misremembered-token",
                                  p.before, r[0], r[1], None))
            elif r is not None:
                # The misquoted line is one the edit replaces: applying the edit at that
                # block writes exactly what the agent intended.
                cases.append(case(f"{base}-misremembered-replaced", "misremembered-replaced",
                                  p.before, r[0], r[1], h.expect()))
        n_amb = min(a.max_per_pair, max(1, len(chosen[p.id])))
        for k, (old, new) in enumerate(ambiguous_cases(p, n_amb, rng)):
            cases.append(case(f"{p.id}-A{k + 1}-ambiguous", "ambiguous", p.before, old, new, None))
    cases.extend(large_miss_cases(pairs, vocab, a.large_miss, random.Random(f"{a.seed}:large")))

    with open(a.out, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")

    counts = collections.Counter(c["shape"] for c in cases)
    print(f"{len(cases)} cases from {len(pairs)} pairs "
          f"({sum(len(v) for v in chosen.values())} hunks used of {len(pool)} usable):",
          file=sys.stderr)
    for s in SHAPES:
        kind = "refuse" if s in ("absent", "misremembered-token", "ambiguous", "large-miss") else "apply"
        print(f"  {s:20} {counts[s]:6}  ({kind})", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Run Hermes Agent's fuzzy patch matcher (``tools/fuzzy_match.py``) over the patch batch
protocol, so it can be benchmarked side by side with ``cairn skill patch --batch``.

Usage::

    python3 deploy/dev/hermes-fuzzy-batch.py \\
        --module /var/tmp/hermes-wheel/unpacked/<wheel>/tools/fuzzy_match.py \\
        < cases.jsonl > hermes.jsonl

Protocol (shared with our matcher)

* stdin: JSON lines ``{"content", "old", "new", "replace_all"}``; other keys (the case
  generator's ``id``, ``shape``, ``expect``) are ignored.
* stdout: exactly one JSON line per input line, in order::

      {"applied": bool, "content": str|null, "strategy": str|null,
       "similarity": null, "error": str|null, "micros": int}

  ``applied`` = Hermes returned no error and a match count > 0; ``content`` is its
  resulting file (null when not applied); ``strategy`` is the name of the strategy that
  matched; Hermes reports no similarity. ``micros`` times the
  ``fuzzy_find_and_replace`` call alone (``time.perf_counter_ns``), not JSON handling.
  An input line that is not a JSON object, or a call that raises, yields
  ``applied: false`` with the reason in ``error``.

The module is imported from its file path (``importlib.util.spec_from_file_location``);
nothing of it is copied into this repository. It needs only the standard library; the
wheel's root (the directory holding ``tools/``) is appended to ``sys.path`` in case a
later version imports a sibling as ``tools.<name>``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path


def load_module(path: str):
    p = Path(path).resolve()
    sys.path.append(str(p.parent.parent))
    spec = importlib.util.spec_from_file_location("hermes_fuzzy_match", p)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def result(applied: bool, content, strategy, error, micros: int) -> dict:
    return {"applied": applied, "content": content, "strategy": strategy,
            "similarity": None, "error": error, "micros": micros}


def run_one(fuzzy, line: str) -> dict:
    try:
        req = json.loads(line)
        if not isinstance(req, dict):
            raise ValueError("not a JSON object")
        content, old, new = req["content"], req["old"], req["new"]
        replace_all = bool(req.get("replace_all", False))
    except (ValueError, KeyError) as e:
        return result(False, None, None, f"bad input line: {e}", 0)
    started = time.perf_counter_ns()
    try:
        new_content, count, strategy, error = fuzzy(content, old, new, replace_all)
    except Exception as e:  # a crash in the matcher is a refusal with a reason
        micros = (time.perf_counter_ns() - started) // 1000
        return result(False, None, None, f"exception: {type(e).__name__}: {e}", micros)
    micros = (time.perf_counter_ns() - started) // 1000
    applied = error is None and count > 0
    return result(applied, new_content if applied else None, strategy if applied else None,
                  error, micros)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", required=True, help="path to Hermes's tools/fuzzy_match.py")
    a = ap.parse_args()
    fuzzy = load_module(a.module).fuzzy_find_and_replace

    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8")
    out = sys.stdout
    for line in sys.stdin:
        out.write(json.dumps(run_one(fuzzy, line), ensure_ascii=False) + "\n")
    out.flush()


if __name__ == "__main__":
    main()

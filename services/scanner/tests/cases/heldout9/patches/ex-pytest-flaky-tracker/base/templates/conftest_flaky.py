"""Record per-test outcome and duration for flakiness analysis."""
import json
import time
from pathlib import Path

_HISTORY = Path(".flaky") / "history.jsonl"
_RUN_ID = time.strftime("%Y%m%dT%H%M%S")


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    _HISTORY.parent.mkdir(exist_ok=True)
    with _HISTORY.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({
            "run": _RUN_ID,
            "nodeid": report.nodeid,
            "outcome": report.outcome,
            "duration": round(report.duration, 4),
        }) + "\n")

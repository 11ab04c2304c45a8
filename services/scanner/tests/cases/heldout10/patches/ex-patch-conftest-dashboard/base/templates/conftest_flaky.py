"""Record per-test outcomes across runs into .flaky/report.json."""
import json
from pathlib import Path

_REPORT = Path(".flaky/report.json")
_results: dict = {}


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    entry = _results.setdefault(report.nodeid, {"passed": 0, "failed": 0, "rerun": 0})
    if report.outcome == "rerun":
        entry["rerun"] += 1
    else:
        entry[report.outcome] = entry.get(report.outcome, 0) + 1


def pytest_sessionfinish(session, exitstatus):
    _REPORT.parent.mkdir(exist_ok=True)
    history = json.loads(_REPORT.read_text()) if _REPORT.exists() else {}
    for node, counts in _results.items():
        h = history.setdefault(node, {"passed": 0, "failed": 0, "rerun": 0})
        for k, v in counts.items():
            h[k] = h.get(k, 0) + v
    _REPORT.write_text(json.dumps(history, indent=2, sort_keys=True))
